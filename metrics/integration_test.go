package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/metrics"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

const (
	guildID = "1100000000000000000"
	userID  = "1000000000000000001"
)

// recorder is a Responder keeping the initial responses.
type recorder struct {
	responses []*discordgo.InteractionResponse
}

func (r *recorder) Respond(_ context.Context, _ *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	r.responses = append(r.responses, resp)
	return nil
}
func (r *recorder) EditOriginal(context.Context, *discordgo.Interaction, *discordgo.WebhookEdit) error {
	return nil
}
func (r *recorder) FollowUp(context.Context, *discordgo.Interaction, *discordgo.WebhookParams) error {
	return nil
}

// interaction decodes a gateway payload as discordgo does.
func interaction(tb testing.TB, seq int, typ discordgo.InteractionType, data string) *discordgo.Interaction {
	tb.Helper()
	raw := fmt.Sprintf(`{"id":"%d","application_id":"1200000000000000000","type":%d,"data":%s,
		"guild_id":%q,"channel_id":"1110000000000000000",
		"member":{"user":{"id":%q,"username":"alice","discriminator":"0"},"roles":[],"permissions":"0","joined_at":"2024-01-01T00:00:00Z"},
		"locale":"en-US","token":"t","version":1}`, 1300000000000000000+seq, typ, data, guildID, userID)
	var i discordgo.Interaction
	if err := json.Unmarshal([]byte(raw), &i); err != nil {
		tb.Fatalf("decode interaction: %v", err)
	}
	return &i
}

// button returns the custom ID of the first button whose ID starts with prefix.
func button(resp *discordgo.InteractionResponse, prefix string) string {
	if resp.Data == nil {
		return ""
	}
	for _, c := range resp.Data.Components {
		row, ok := c.(discordgo.ActionsRow)
		if !ok {
			if p, ok := c.(*discordgo.ActionsRow); ok {
				row = *p
			}
		}
		for _, bc := range row.Components {
			b, ok := bc.(*discordgo.Button)
			if v, isValue := bc.(discordgo.Button); isValue {
				b, ok = &v, true
			}
			if ok && strings.HasPrefix(b.CustomID, prefix) && !b.Disabled {
				return b.CustomID
			}
		}
	}
	return ""
}

// scrape returns the value of one sample line of /metrics ("name{labels}").
func scrape(tb testing.TB, url, series string) float64 {
	tb.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err != nil {
				tb.Fatalf("%s: %q: %v", series, line, err)
			}
			return v
		}
	}
	tb.Fatalf("/metrics has no %s", series)
	return 0
}

// TestMetricsFollowRealPlays plays tickets through the real handlers over
// the Redis store, then checks that /metrics agrees with the player's own
// statistics as the store recorded them.
func TestMetricsFollowRealPlays(t *testing.T) {
	ctx := context.Background()
	store, err := redisstore.Open(ctx, redistest.URL(t), storage.Options{
		Defaults: storage.Settings{StartingBalance: 1_000_00, DailyCooldown: time.Hour},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	app := commands.New(commands.Config{Observer: m}, store)
	srv := httptest.NewServer(metrics.Handler(reg, metrics.Health(metrics.Check{Name: "store", Run: store.Ping}), nil))
	defer srv.Close()

	const tickets = 40
	seq, bought, chestsOpened, playCommands := 0, 0, 0, 0
	handle := func(typ discordgo.InteractionType, data string) *discordgo.InteractionResponse {
		t.Helper()
		seq++
		rec := &recorder{}
		app.Handle(ctx, rec, interaction(t, seq, typ, data))
		if len(rec.responses) != 1 {
			t.Fatalf("interaction %d: %d responses, want 1", seq, len(rec.responses))
		}
		return rec.responses[0]
	}
	for bought < tickets {
		playCommands++
		card := handle(discordgo.InteractionApplicationCommand, `{"id":"1210000000000000001","name":"play","type":1}`)
		if id := button(card, "v1:chest:"); id != "" { // a due chest comes before a new ticket
			handle(discordgo.InteractionMessageComponent, fmt.Sprintf(`{"custom_id":%q,"component_type":2}`, id))
			chestsOpened++
			continue
		}
		auto := button(card, "v1:auto:")
		if auto == "" {
			t.Fatalf("/play answered no Auto button: %+v", card.Data)
		}
		bought++
		shown := handle(discordgo.InteractionMessageComponent, fmt.Sprintf(`{"custom_id":%q,"component_type":2}`, auto))
		if id := button(shown, "v1:chest:"); id != "" {
			handle(discordgo.InteractionMessageComponent, fmt.Sprintf(`{"custom_id":%q,"component_type":2}`, id))
			chestsOpened++
		}
	}

	uid, gid := uint64(1000000000000000001), uint64(1100000000000000000)
	p, err := store.Player(ctx, storage.PlayerID{Guild: gid, User: uid})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Stats
	wins := 0.0
	for _, tier := range []string{"gem", "pipe", "bomb", "sabre", "candle", "barrel"} {
		wins += scrape(t, srv.URL, `clefs_wins_total{tier="`+tier+`"}`)
	}
	chests := 0.0
	for _, lot := range []string{"three-gold", "gold", "silver", "bronze"} {
		chests += scrape(t, srv.URL, `clefs_chests_total{lot="`+lot+`"}`)
	}
	paid := scrape(t, srv.URL, `clefs_credits_paid_cents_total{game="main"}`) +
		scrape(t, srv.URL, `clefs_credits_paid_cents_total{game="chest"}`)
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"tickets bought", scrape(t, srv.URL, "clefs_tickets_bought_total"), float64(s.Plays)},
		{"plays drawn", scrape(t, srv.URL, "clefs_plays_total"), float64(s.Plays)},
		{"credits staked", scrape(t, srv.URL, "clefs_credits_staked_cents_total"), float64(s.StakedCents)},
		{"credits paid", paid, float64(s.WonCents)},
		{"wins", wins, float64(s.Wins)},
		{"keys", scrape(t, srv.URL, "clefs_keys_collected_total"), float64(s.Keys)},
		{"chests", chests, float64(s.Chests)},
		{"chests clicked", chests, float64(chestsOpened)},
		{"/play interactions", scrape(t, srv.URL, `clefs_interactions_total{command="play",outcome="ok"}`), float64(playCommands)},
		{"latency samples", scrape(t, srv.URL, `clefs_interaction_duration_seconds_count{command="play"}`), float64(playCommands)},
	} {
		if c.got != c.want {
			t.Errorf("%s: metrics say %v, the store says %v", c.what, c.got, c.want)
		}
	}
	if s.Plays != tickets {
		t.Errorf("store counted %d plays, want %d", s.Plays, tickets)
	}
	t.Logf("%d tickets: %d wins, %d keys, %d chests, staked %d, won %d cents", s.Plays, s.Wins, s.Keys, s.Chests, s.StakedCents, s.WonCents)
}
