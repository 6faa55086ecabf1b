package fakediscord_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// A discordgo bot answers a user's /ping through the fake.
func Example() {
	srv := fakediscord.New(fakediscord.Options{Token: "T"})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()

	// The bot: a real discordgo session whose REST calls go to the fake.
	s, _ := discordgo.New("Bot T")
	base, _ := url.Parse(srv.URL())
	s.Client = &http.Client{Transport: rewrite{base}}
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		_ = s.InteractionRespond(ic.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "pong", Flags: discordgo.MessageFlagsEphemeral},
		})
	})
	if err := s.Open(); err != nil {
		panic(err)
	}
	defer s.Close()
	_, err := s.ApplicationCommandBulkOverwrite(srv.AppID(), "", []*discordgo.ApplicationCommand{{Name: "ping", Description: "Ping"}})
	if err != nil {
		panic(err)
	}

	// The user.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: "1000", User: "42", Name: "ping"})
	if err != nil {
		panic(err)
	}
	r, err := p.Wait(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Type, r.Message.Content, r.Ephemeral, len(srv.Failures()))
	// Output: 4 pong true 0
}
