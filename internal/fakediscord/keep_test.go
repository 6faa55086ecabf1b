package fakediscord_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// With KeepInteractions, the oldest interactions are forgotten with the
// messages they created; the newest still work, and updating a message an
// older interaction created does not delete it with the newer one.
func TestKeepInteractions(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{Guilds: []string{guild}, KeepInteractions: 2})
	c := connect(t, srv, token)
	ctx := ctxT(t)
	if _, err := srv.WaitIdentified(ctx); err != nil {
		t.Fatal(err)
	}
	register(t, c, srv, guild, playCmd)
	var (
		mu     sync.Mutex
		tokens []string
	)
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		mu.Lock()
		tokens = append(tokens, i.Token)
		mu.Unlock()
		resp := &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "grid", Components: buttons("auto")},
		}
		if i.Type == discordgo.InteractionMessageComponent {
			resp.Type = discordgo.InteractionResponseUpdateMessage
			resp.Data.Content = "updated"
		}
		if err := s.InteractionRespond(i, resp); err != nil {
			t.Errorf("respond: %v", err)
		}
	})
	var msgs []string
	for range 3 {
		_, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "333", Name: "play"}))
		msgs = append(msgs, r.Message.ID)
	}
	// The first of three is forgotten: its message and its token.
	if _, ok := srv.Message(msgs[0]); ok {
		t.Errorf("message %s of the first interaction is still kept", msgs[0])
	}
	if _, err := srv.Click(ctx, fakediscord.Click{Message: msgs[0], CustomID: "auto", User: "333"}); !errors.Is(err, fakediscord.ErrUnknownMessage) {
		t.Errorf("click on a forgotten message: %v, want ErrUnknownMessage", err)
	}
	mu.Lock()
	first := tokens[0]
	mu.Unlock()
	_, err := c.s.WebhookMessageEdit(srv.AppID(), first, "@original", &discordgo.WebhookEdit{Content: ptr("late")})
	var rerr *discordgo.RESTError
	if !errors.As(err, &rerr) || rerr.Message == nil || rerr.Message.Code != 10015 {
		t.Errorf("edit with a forgotten token: %v, want 10015 Unknown Webhook", err)
	}
	// A click on the third message updates it: the click (the fourth
	// interaction) forgets the second, and the third's message stays,
	// since the click did not create it.
	answered(t, ctx)(srv.Click(ctx, fakediscord.Click{Message: msgs[2], CustomID: "auto", User: "333"}))
	if m, ok := srv.Message(msgs[2]); !ok || m.Content != "updated" {
		t.Errorf("message %s after the click on it = %+v, %v; want it kept, updated", msgs[2], m, ok)
	}
	if _, ok := srv.Message(msgs[1]); ok {
		t.Errorf("message %s of the second interaction is still kept", msgs[1])
	}
	for range 2 { // two more slashes forget the third interaction and the click
		answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, User: "333", Name: "play"}))
	}
	if _, ok := srv.Message(msgs[2]); ok {
		t.Errorf("message %s is kept after its interaction and the click on it were forgotten", msgs[2])
	}
	// The only failure is the edit with the forgotten token.
	for _, f := range srv.Failures() {
		if f.Code != 10015 {
			t.Errorf("failure: %s", f)
		}
	}
}
