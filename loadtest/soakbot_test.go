package loadtest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// leakyHandler keeps 16 KiB per interaction: a bot that holds something
// per interaction, as discordgo's rate limiter once did with a bucket per
// interaction token, large enough for the heap's ratio to show it in a
// short run.
type leakyHandler struct {
	bot.Handler
	mu   sync.Mutex
	kept [][]byte
}

func (h *leakyHandler) Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
	h.mu.Lock()
	h.kept = append(h.kept, make([]byte, 16<<10))
	h.mu.Unlock()
	h.Handler.Handle(ctx, r, i)
}

func interactionSoakConfig(tb testing.TB) InteractionSoakConfig {
	cfg := short(tb)
	cfg.Players = 4
	return InteractionSoakConfig{Config: cfg, Interactions: 600, Keep: 64}
}

func TestSoakInteractionsFailsOnALeak(t *testing.T) {
	cfg := interactionSoakConfig(t)
	cfg.WrapHandler = func(h bot.Handler) bot.Handler { return &leakyHandler{Handler: h} }
	rep, err := SoakInteractions(context.Background(), cfg)
	if !errors.Is(err, ErrGrowth) {
		t.Fatalf("SoakInteractions through a leaking handler: %v, want ErrGrowth; report %+v", err, rep)
	}
	if rep.Interactions != 600 || rep.EarlyInteractions != 60 || rep.Ratio <= DefaultMaxGrowth || rep.BytesPerInteraction < 16<<10 {
		t.Errorf("report %+v", rep)
	}
	reportSays(t, rep, "GROWING") // the heap grew
}

// TestSoakInteractionsReport checks the report of a soak on each store:
// every interaction answered, the books audited, the heap read twice,
// the fields in the JSON. Whether the heap stayed flat is .ci/run's soak
// step, with more interactions.
func TestSoakInteractionsReport(t *testing.T) {
	for _, store := range []string{"bolt", "redis"} {
		t.Run(store, func(t *testing.T) {
			cfg := interactionSoakConfig(t)
			cfg.Interactions, cfg.MaxGrowth = 300, 1000 // a report, not a verdict
			if store == "redis" {
				cfg.RedisURL = redistest.URL(t)
			}
			rep, err := SoakInteractions(context.Background(), cfg)
			if err != nil {
				t.Fatalf("SoakInteractions: %v", err)
			}
			if rep.Interactions != 300 || rep.EarlyInteractions != 30 || rep.Cycles == 0 || rep.Chests == 0 ||
				rep.EarlyHeap == 0 || rep.EndHeap == 0 || rep.Ratio == 0 || rep.Errors != 0 || len(rep.Refused) != 0 ||
				rep.Audit.Plays < rep.Cycles || rep.Audit.Cycles != rep.Cycles || rep.Keep != 64 {
				t.Errorf("report %+v", rep)
			}
			var js bytes.Buffer
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{`"early_heap_bytes"`, `"end_heap_bytes"`, `"ratio"`, `"bytes_per_interaction"`, `"interactions_per_sec"`} {
				if !strings.Contains(js.String(), f) {
					t.Errorf("JSON report without %s:\n%s", f, js.String())
				}
			}
			reportSays(t, rep, "end / early heap", "bytes per interaction", "every balance")
		})
	}
}

func TestSoakInteractionsBadConfig(t *testing.T) {
	for _, cfg := range []InteractionSoakConfig{
		{Interactions: 99},
		{Interactions: 1000, Config: Config{Players: 10}, Keep: 39}, // a card must outlive the others' interactions
		{Interactions: 1000, MaxGrowth: 0.5},
	} {
		if _, err := SoakInteractions(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
