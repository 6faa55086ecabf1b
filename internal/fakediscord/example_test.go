package fakediscord_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// A bot on an interactions endpoint answers /ping in its HTTP reply.
func Example_interactionsEndpoint() {
	// The bot: an endpoint that checks Discord's signature with the key
	// the fake signs with, and answers in the reply's body.
	key, _ := hex.DecodeString(fakediscord.TestPublicKeyHex)
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !discordgo.VerifyInteraction(r, key) {
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		var i discordgo.Interaction
		if err := json.NewDecoder(r.Body).Decode(&i); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}
		if i.Type == discordgo.InteractionApplicationCommand {
			resp = discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "pong"},
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer bot.Close()

	srv := fakediscord.New(fakediscord.Options{Token: "T", InteractionsURL: bot.URL + "/interactions"})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// What the Developer Portal checks when the URL is saved.
	fmt.Println("ping:", srv.Ping(ctx))

	// Commands are registered over REST, as ever.
	s, _ := discordgo.New("Bot T")
	base, _ := url.Parse(srv.URL())
	s.Client = &http.Client{Transport: rewrite{base}}
	if _, err := s.ApplicationCommandBulkOverwrite(srv.AppID(), "", []*discordgo.ApplicationCommand{{Name: "ping", Description: "Ping"}}); err != nil {
		panic(err)
	}
	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: "1000", User: "42", Name: "ping"})
	if err != nil {
		panic(err)
	}
	r, err := p.Wait(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Type, r.Message.Content, len(srv.Failures()))
	// Output:
	// ping: <nil>
	// 4 pong 0
}

// A test makes the next call of a route answer Discord's 429.
func ExampleServer_InjectFault() {
	srv := fakediscord.New(fakediscord.Options{Token: "T"})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()
	_, err := srv.InjectFault(fakediscord.Fault{
		Kind: fakediscord.FaultRateLimit, Route: "GET /users/@me", RetryAfter: 1500 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	req, _ := http.NewRequest("GET", srv.URL()+"/api/v10/users/@me", nil)
	req.Header.Set("Authorization", "Bot T")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("X-RateLimit-Scope"))
	fmt.Println(string(body))
	fmt.Println(len(srv.Faults()), srv.Faults()[0].Kind, len(srv.Failures()))
	// Output:
	// 429 2 user
	// {"message":"You are being rate limited.","retry_after":1.5,"global":false,"code":0}
	// 1 rate_limit 0
}
