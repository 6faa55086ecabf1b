package bot

import (
	"testing"

	"github.com/bwmarrin/discordgo"
)

func TestResponderFillsAMissingApplicationID(t *testing.T) {
	s := &discordgo.Session{State: discordgo.NewState()}
	r := responder{s}
	i := &discordgo.Interaction{ID: "1", Token: "t"}
	if got := r.withAppID(i).AppID; got != "" {
		t.Fatalf("before READY: app ID %q", got)
	}
	s.State.Ready = discordgo.Ready{User: &discordgo.User{ID: "42"}}
	if got := r.withAppID(i).AppID; got != "42" {
		t.Fatalf("READY without application: app ID %q, want the bot user's 42", got)
	}
	s.State.Ready.Application = &discordgo.Application{ID: "77"}
	if got := r.withAppID(i).AppID; got != "77" {
		t.Fatalf("app ID %q, want READY's application 77", got)
	}
	if i.AppID != "" {
		t.Fatal("withAppID changed the caller's interaction")
	}
	i.AppID = "5"
	if got := r.withAppID(i); got != i {
		t.Fatal("an interaction with its app ID should pass unchanged")
	}
}

func TestDecodeLeniently(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		ok     bool
		locale discordgo.Locale
	}{
		{`{"id":"123","token":"tok","type":2,"locale":"fr","member":{"permissions":32}}`, true, "fr"},
		{`{"id":123,"token":"tok","type":3,"locale":7}`, true, ""},
		{`{"id":"x","token":"tok"}`, false, ""},
		{`{"id":"123"}`, false, ""},
		{`not json`, false, ""},
	} {
		i, err := decodeLeniently([]byte(tc.raw))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.raw, err)
			continue
		}
		if tc.ok && (i.ID != "123" || i.Token != "tok" || i.Locale != tc.locale) {
			t.Errorf("%s: decoded %+v", tc.raw, i)
		}
	}
	if a := apology("fr"); a.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || a.Data.Content == apology("en-US").Data.Content {
		t.Fatalf("apology: %+v", a.Data)
	}
}
