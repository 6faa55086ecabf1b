package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// TestRegister: a global registration keeps the entry point Discord
// created when Activities were enabled; a guild's is on that guild only;
// with the Activity configured but the application's Activities off, the
// other commands are registered and the warning says what to enable; a
// wrong token is an error.
func TestRegister(t *testing.T) {
	srv := registerEnv(t, true)
	ep, _ := srv.EntryPoint()
	var out, errOut bytes.Buffer
	if err := Main(context.Background(), []string{"register"}, &out, &errOut); err != nil {
		t.Fatalf("register: %v\n%s", err, errOut.String())
	}
	if got, _ := srv.EntryPoint(); got == nil || got.ID != ep.ID || len(srv.Commands("")) < 2 {
		t.Errorf("after a global registration: entry point %+v, %d commands", got, len(srv.Commands("")))
	}

	srv = registerEnv(t, false)
	if err := Main(context.Background(), []string{"register", "-guild", "4242"}, &out, &errOut); err != nil {
		t.Fatalf("register: %v\n%s", err, errOut.String())
	}
	cmds := srv.Commands("4242")
	if len(cmds) == 0 || !strings.Contains(out.String(), "on guild 4242") {
		t.Errorf("registered %d commands; output %q", len(cmds), out.String())
	}
	if srv.Commands("") != nil {
		t.Error("registered globally too")
	}
	// The Activity configured, the application's Activities off: the
	// other commands, and what to enable.
	t.Setenv("PUBLIC_ADDR", "127.0.0.1:0")
	t.Setenv("DISCORD_CLIENT_SECRET", "s3cret")
	if err := Main(context.Background(), []string{"register", "-guild", ""}, &out, &errOut); err != nil ||
		!strings.Contains(errOut.String(), "Activities → URL Mappings") || len(srv.Commands("")) == 0 {
		t.Errorf("register with the Activity, none enabled: %v, %d commands; stderr %q", err, len(srv.Commands("")), errOut.String())
	}

	t.Setenv("DISCORD_TOKEN", "wrong")
	err := Main(context.Background(), []string{"register"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("register with a wrong token = %v, want a 401", err)
	}
}

// registerEnv starts a fake Discord (its application's Activities on or
// off) and points the environment of clefs register at it.
func registerEnv(t *testing.T, activities bool) *fakediscord.Server {
	t.Helper()
	srv := fakediscord.New(fakediscord.Options{Token: "reg-token", Activities: activities})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("DISCORD_TOKEN", "reg-token")
	t.Setenv("DISCORD_API_BASE", srv.URL())
	t.Setenv("DISCORD_GUILD_ID", "")
	return srv
}
