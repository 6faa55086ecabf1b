package commands

import (
	"testing"
)

// playIsRefused plays as alice and reports whether the play was refused for
// the channel (true), or went through (false); visibility is returned too.
func playIsRefused(tb testing.TB, e *env) (refused, ephemeral bool) {
	tb.Helper()
	h := e.slash(alice, "en-US", "play")
	if h.ephemeral() && len(h.buttons()) == 0 {
		h.expectUserError("plays happen in")
		return true, true
	}
	return false, h.ephemeral()
}

// TestAdminSettingsApplyToPlays: /admin settings goes through the App's
// store (UpdateGuild), so the next play sees the change at once, without
// the clock moving. (With storage/settingscache in front, as the
// composition root wraps it, the cache must drop the guild on UpdateGuild.)
func TestAdminSettingsApplyToPlays(t *testing.T) {
	e := newEnv(t)
	if refused, eph := playIsRefused(t, e); refused || eph {
		t.Fatalf("default settings: refused=%v ephemeral=%v, want a public play", refused, eph)
	}
	e.admin(moderator, modPermsSet, "settings", opt{"channel", optChannel, "1110000000000000555"})
	if refused, _ := playIsRefused(t, e); !refused {
		t.Fatal("a play in another channel went through right after /admin settings channel")
	}
	e.admin(moderator, modPermsSet, "settings", opt{"any-channel", optBool, true}, opt{"public-plays", optBool, false})
	if refused, eph := playIsRefused(t, e); refused || !eph {
		t.Fatalf("after any-channel and private plays: refused=%v ephemeral=%v", refused, eph)
	}
}
