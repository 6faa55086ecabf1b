package fakediscord_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// putRaw bulk-overwrites the commands of g ("" = global) with a JSON body.
func putRaw(c *client, srv *fakediscord.Server, g, body string) error {
	url := discordgo.EndpointApplicationGlobalCommands(srv.AppID())
	if g != "" {
		url = discordgo.EndpointApplicationGuildCommands(srv.AppID(), g)
	}
	_, err := c.s.RequestWithBucketID("PUT", url, rawJSON(body), url)
	return err
}

// rawJSON is a request body sent as it is.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestEntryPointCommand: an application with Activities starts with
// Discord's entry point, which a global overwrite keeps by ID or name and
// may not leave out; none may go to a guild; only it may have a handler,
// and only with Activities.
func TestEntryPointCommand(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{Activities: true, Guilds: []string{guild}})
	c := connect(t, srv, token)
	ep, handler := srv.EntryPoint()
	if ep == nil || ep.Type != 4 || ep.Name != "launch" || handler != 2 {
		t.Fatalf("entry point %+v, handler %d", ep, handler)
	}
	app, err := c.s.Application("@me")
	if err != nil || app.Flags&(1<<17) == 0 {
		t.Errorf("application %+v, %v: want the EMBEDDED flag", app, err)
	}

	refused := []struct {
		what, guild, body string
		code              int
	}{
		{"a global overwrite without the entry point", "", `[{"name":"play","description":"Play"}]`, 50240},
		{"one renaming it without its ID", "", `[{"type":4,"name":"open","handler":2}]`, 50240},
		{"an entry point on a guild", guild, `[{"type":4,"name":"launch","handler":2}]`, 50035},
		{"two entry points", "", `[{"type":4,"name":"launch","handler":2},{"type":4,"name":"open","handler":2}]`, 50035},
		{"a handler on a chat command", "", `[{"type":4,"name":"launch","handler":2},{"name":"play","description":"Play","handler":2}]`, 50035},
		{"a handler of no kind", "", `[{"type":4,"name":"launch","handler":3}]`, 50035},
	}
	for _, r := range refused {
		if st, code := restCode(putRaw(c, srv, r.guild, r.body)); st != 400 || code != r.code {
			t.Errorf("%s: %d %d, want 400 %d", r.what, st, code, r.code)
		}
	}
	if n := len(srv.Failures()); n != len(refused) {
		t.Errorf("%d failures recorded, want %d", n, len(refused))
	}
	if got, _ := srv.EntryPoint(); got == nil || got.ID != ep.ID || srv.Registrations() != 0 {
		t.Fatalf("after the refusals: entry point %+v, %d registrations", got, srv.Registrations())
	}

	// Renamed, with its ID, to an app-handled command: kept.
	if err := putRaw(c, srv, "", `[{"id":"`+ep.ID+`","type":4,"name":"scratch","description":"Scratch","handler":1},{"name":"play","description":"Play"}]`); err != nil {
		t.Fatal(err)
	}
	if got, h := srv.EntryPoint(); got == nil || got.ID != ep.ID || got.Name != "scratch" || h != 1 || len(srv.Commands("")) != 2 {
		t.Errorf("renamed entry point %+v, handler %d", got, h)
	}

	// Deleted, it may be left out.
	if err := c.s.ApplicationCommandDelete(srv.AppID(), "", ep.ID); err != nil {
		t.Fatal(err)
	}
	if err := putRaw(c, srv, "", `[{"name":"play","description":"Play"}]`); err != nil {
		t.Errorf("overwrite after the deletion: %v", err)
	}
	if got, _ := srv.EntryPoint(); got != nil {
		t.Errorf("entry point %+v after its deletion", got)
	}

	plain := startFake(t, fakediscord.Options{})
	pc := connect(t, plain, token)
	if got, _ := plain.EntryPoint(); got != nil {
		t.Errorf("an application without Activities has the entry point %+v", got)
	}
	err = putRaw(pc, plain, "", `[{"type":4,"name":"launch","handler":2}]`)
	if st, code := restCode(err); st != 400 || code != 50035 || !strings.Contains(fmt.Sprint(err), `"0":{"handler":{"_errors":[{"code":"APPLICATION_COMMAND_HANDLER_INVALID"`) {
		t.Errorf("a handler without Activities: %d %d %v", st, code, err)
	}
}

// TestLaunchActivityCallback: LAUNCH_ACTIVITY answers a command or a
// click of an application with Activities, creates no message and is
// recorded; without Activities it is refused.
func TestLaunchActivityCallback(t *testing.T) {
	t.Parallel()
	for _, activities := range []bool{true, false} {
		srv := startFake(t, fakediscord.Options{Activities: activities, Guilds: []string{guild}})
		c := connect(t, srv, token)
		ctx := ctxT(t)
		if _, err := srv.WaitIdentified(ctx); err != nil {
			t.Fatal(err)
		}
		register(t, c, srv, guild, playCmd)
		errs := make(chan error, 2)
		c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
			resp := &discordgo.InteractionResponse{Type: 12}
			if i.Type == discordgo.InteractionApplicationCommand && i.ChannelID == "1" {
				resp = &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
					Data: &discordgo.InteractionResponseData{Content: "card", Components: buttons("act")}}
			}
			errs <- s.InteractionRespond(i, resp)
		})
		_, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "1", User: "333", Name: "play"}))
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		for _, send := range []func() (*fakediscord.Pending, error){
			func() (*fakediscord.Pending, error) {
				return srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: "act", User: "333"})
			},
			func() (*fakediscord.Pending, error) {
				return srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "2", User: "444", Name: "play"})
			},
		} {
			p, err := send()
			if err != nil {
				t.Fatal(err)
			}
			err = <-errs
			if !activities {
				if st, code := restCode(err); st != 400 || code != 50035 || !strings.Contains(err.Error(), "Activities") {
					t.Errorf("a launch without Activities: %v", err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("launch: %v", err)
			}
			got, err := p.Wait(ctx)
			if err != nil || got.Type != 12 || got.Message != nil || got.Data != nil {
				t.Errorf("launch answered %+v, %v", got, err)
			}
		}
		l := srv.Launches()
		if !activities {
			refused := 0
			for _, f := range srv.Failures() { // and, past the deadline, the interactions left unanswered
				if f.Code == 50035 {
					refused++
				}
			}
			if len(l) != 0 || refused != 2 {
				t.Errorf("without Activities: launches %+v, failures %v", l, srv.Failures())
			}
			continue
		}
		if len(l) != 2 || l[0].User != "333" || l[0].Guild != guild || l[0].Channel != "1" || l[1].User != "444" || l[1].Channel != "2" {
			t.Errorf("launches %+v", l)
		}
		noFailures(t, srv)
	}
}
