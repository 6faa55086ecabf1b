package loadtest

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// leakyHandler leaks per interaction what discordgo v0.29 leaks when a
// bot lets it key rate-limit buckets by URL (discordgo #1333): a bucket
// named after the interaction's token, kept for ever in its rate
// limiter; and 16 KiB more, so that the heap's ratio shows it in a short
// run.
type leakyHandler struct {
	bot.Handler
	rl   *discordgo.RateLimiter
	mu   sync.Mutex
	kept [][]byte
}

func (h *leakyHandler) Handle(ctx context.Context, r commands.Responder, i *discordgo.Interaction) {
	h.rl.GetBucket(discordgo.EndpointInteractionResponse(i.ID, i.Token))
	h.mu.Lock()
	h.kept = append(h.kept, make([]byte, 16<<10))
	h.mu.Unlock()
	h.Handler.Handle(ctx, r, i)
}

func interactionSoakConfig(tb testing.TB) InteractionSoakConfig {
	return InteractionSoakConfig{
		Interactions: 600, Players: 4, Guilds: 2, Keep: 64, Logger: testLogger(tb),
		Drawer: keyDrawer{game.NewSecureSource()}, BotEnv: map[string]string{"APP_EMOJIS": "false"},
	}
}

// exactHeapProfile records every allocation in the heap profile for the
// test, so that the rate limiter's buckets are counted, not estimated.
func exactHeapProfile(t *testing.T) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	t.Cleanup(func() { runtime.MemProfileRate = old })
}

func TestSoakInteractionsFailsOnALeak(t *testing.T) {
	exactHeapProfile(t)
	cfg := interactionSoakConfig(t)
	cfg.WrapHandler = func(h bot.Handler) bot.Handler { return &leakyHandler{Handler: h, rl: discordgo.NewRatelimiter()} }
	rep, err := SoakInteractions(context.Background(), cfg)
	if !errors.Is(err, ErrGrowth) {
		t.Fatalf("SoakInteractions through a leaking handler: %v, want ErrGrowth; report %+v", err, rep)
	}
	if rep.Interactions != 600 || rep.EarlyInteractions != 60 || rep.Ratio <= DefaultMaxGrowth || rep.BytesPerInteraction < 16<<10 {
		t.Errorf("report %+v", rep)
	}
	// Every interaction after the early reading left a bucket.
	if d := rep.EndBuckets.Objects - rep.EarlyBuckets.Objects; d < rep.Interactions-rep.EarlyInteractions {
		t.Errorf("buckets grew by %d objects over %d interactions, want at least one each (early %+v, end %+v)",
			d, rep.Interactions-rep.EarlyInteractions, rep.EarlyBuckets, rep.EndBuckets)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "GROWING") {
		t.Errorf("the report does not say the heap grew:\n%s", text.String())
	}
}

// TestSoakInteractionsHoldsNoTokens: the bot keeps no rate-limit bucket
// per interaction. discordgo v0.29 makes one per token for each callback
// or edit URL and never frees it (discordgo #1333), unless the bot names
// the buckets itself from a bounded set: bot.DefaultSlots of them, each
// created once, whatever the number of interactions.
func TestSoakInteractionsHoldsNoTokens(t *testing.T) {
	exactHeapProfile(t)
	cfg := interactionSoakConfig(t)
	cfg.Interactions = 1000
	cfg.MaxGrowth = 1000 // the buckets are the verdict here, not the heap of a short run
	rep, err := SoakInteractions(context.Background(), cfg)
	if err != nil {
		t.Fatalf("SoakInteractions: %v; report %+v", err, rep)
	}
	// A bucket and its share of the map's growth per slot, at most.
	if d, n := rep.EndBuckets.Objects-rep.EarlyBuckets.Objects, rep.Interactions-rep.EarlyInteractions; d > bot.DefaultSlots+16 {
		t.Errorf("discordgo's buckets grew by %d objects over %d interactions (early %+v, end %+v), more than the bot's %d slots: the bot keeps buckets per interaction token",
			d, n, rep.EarlyBuckets, rep.EndBuckets, bot.DefaultSlots)
	}
}

// TestSoakInteractionsReport checks the report of a soak on each store:
// every interaction answered, the books audited, the heap read twice,
// the fields in the JSON. Whether the heap stayed flat is .ci/run's soak
// step, with more interactions.
func TestSoakInteractionsReport(t *testing.T) {
	for _, store := range []string{StoreBolt, StoreRedis} {
		t.Run(store, func(t *testing.T) {
			cfg := interactionSoakConfig(t)
			cfg.Interactions, cfg.MaxGrowth = 300, 1000 // a report, not a verdict
			if store == StoreRedis {
				cfg.Store, cfg.RedisURL = StoreRedis, redistest.URL(t)
			}
			rep, err := SoakInteractions(context.Background(), cfg)
			if err != nil {
				t.Fatalf("SoakInteractions: %v", err)
			}
			if rep.Interactions != 300 || rep.EarlyInteractions != 30 || rep.Cycles == 0 || rep.Chests == 0 ||
				rep.EarlyHeap == 0 || rep.EndHeap == 0 || rep.Ratio == 0 || rep.Errors != 0 || len(rep.Refused) != 0 ||
				rep.Audit.Plays < rep.Cycles || rep.Audit.Cycles != rep.Cycles || rep.Transport != Gateway || rep.Keep != 64 {
				t.Errorf("report %+v", rep)
			}
			var js, text bytes.Buffer
			if err := rep.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{`"early_heap_bytes"`, `"end_heap_bytes"`, `"ratio"`, `"bytes_per_interaction"`, `"end_buckets"`, `"interactions_per_sec"`} {
				if !strings.Contains(js.String(), f) {
					t.Errorf("JSON report without %s:\n%s", f, js.String())
				}
			}
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"end / early heap", "bytes per interaction", "rate-limit buckets", "every balance"} {
				if !strings.Contains(text.String(), want) {
					t.Errorf("the report does not say %q:\n%s", want, text.String())
				}
			}
		})
	}
}

func TestSoakInteractionsBadConfig(t *testing.T) {
	for _, cfg := range []InteractionSoakConfig{
		{Interactions: 99},
		{Interactions: 1000, Players: 10, Keep: 39}, // a card must outlive the others' interactions
		{Interactions: 1000, MaxGrowth: 0.5},
	} {
		if _, err := SoakInteractions(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestScaleHeapSample(t *testing.T) {
	// At rate 1 every allocation is a sample: no scaling.
	if o, b := scaleHeapSample(3, 384, 1); o != 3 || b != 384 {
		t.Errorf("rate 1: %d, %d", o, b)
	}
	// 128-byte objects sampled every 64 KiB: each sample stands for
	// about 512 of them.
	if o, b := scaleHeapSample(2, 256, 64<<10); o < 1020 || o > 1030 || b != o*128 && (b < 1020*128 || b > 1030*128) {
		t.Errorf("rate 64 KiB: %d objects, %d bytes; want about 1,024 and 131,072", o, b)
	}
	if o, b := scaleHeapSample(0, 0, 64<<10); o != 0 || b != 0 {
		t.Errorf("no sample: %d, %d", o, b)
	}
}
