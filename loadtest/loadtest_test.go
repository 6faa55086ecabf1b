package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

func openBolt(tb testing.TB) storage.Store {
	tb.Helper()
	s, err := boltstore.Open(filepath.Join(tb.TempDir(), "clefs.db"), storage.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// checkStore checks, after a run, that the store agrees with what the load
// generator counted: one ticket bought per cycle, every chest counted, every
// ticket closed, and the balance invariant for every player.
func checkStore(t *testing.T, s storage.Store, rep *Report) {
	t.Helper()
	ctx := context.Background()
	var plays, chests int64
	for _, id := range rep.Players {
		p, err := s.Player(ctx, id)
		if err != nil {
			t.Fatalf("player %v: %v", id, err)
		}
		if err := storage.CheckInvariant(p); err != nil {
			t.Errorf("player %v: %v", id, err)
		}
		if p.Ticket != nil && p.Ticket.Open() {
			t.Errorf("player %v: ticket %d left open", id, p.Ticket.ID)
		}
		if p.ChestPending {
			t.Errorf("player %v: chest left due", id)
		}
		plays += p.Stats.Plays
		chests += p.Stats.Chests
	}
	if plays != rep.TotalCycles {
		t.Errorf("store counts %d plays, load generator %d cycles", plays, rep.TotalCycles)
	}
	if chests != rep.TotalChests {
		t.Errorf("store counts %d chests, load generator %d", chests, rep.TotalChests)
	}
}

func TestRunBolt(t *testing.T) {
	s := openBolt(t)
	var log bytes.Buffer
	rep, err := Run(context.Background(), Config{
		Store:     s,
		Players:   8,
		Guilds:    2,
		Duration:  time.Second,
		Calibrate: 200 * time.Millisecond,
		Direct:    true,
		Rounds:    2,
		Log:       &log,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if rep.Load.Cycles <= 0 {
		t.Fatalf("no cycle completed")
	}
	if rep.Load.Errors != 0 || len(rep.FirstErrors) != 0 {
		t.Errorf("%d errors: %q", rep.Load.Errors, rep.FirstErrors)
	}
	// Every cycle is two interactions, plus one per chest.
	if want := 2*rep.Load.Cycles + rep.Load.Chests; rep.Load.Calls != want {
		t.Errorf("interactions = %d, want 2×%d cycles + %d chests = %d", rep.Load.Calls, rep.Load.Cycles, rep.Load.Chests, want)
	}
	for _, k := range []string{KindPlay, KindAuto} {
		kr, ok := rep.Kinds[k]
		if !ok || int64(kr.Total.N) < rep.Load.Cycles {
			t.Errorf("kind %s: %d samples for %d cycles", k, kr.Total.N, rep.Load.Cycles)
		}
		if kr.StoreCalls < 1 {
			t.Errorf("kind %s: %.2f store calls per interaction, want ≥ 1 (TimedStore not on the path?)", k, kr.StoreCalls)
		}
		if kr.Overhead.P50 > kr.Total.P50 {
			t.Errorf("kind %s: overhead p50 %s > total p50 %s", k, kr.Overhead.P50, kr.Total.P50)
		}
	}
	if rep.Isolated == nil || rep.Isolated.Total.N == 0 {
		t.Errorf("no calibration samples")
	}
	// Every /play buys (or resumes) and every Auto reveals, each one store
	// call, recorded by method once the interaction is measured.
	if buy, reveal := rep.Steps["Buy"], rep.Steps["Reveal"]; int64(buy.N) < rep.Load.Cycles || int64(reveal.N) < rep.Load.Cycles || buy.P50 <= 0 {
		t.Errorf("store steps by method: Buy %v, Reveal %v, for %d cycles", buy, reveal, rep.Load.Cycles)
	}
	if rep.Direct == nil || rep.Direct.Cycles == 0 {
		t.Errorf("direct phase: %+v", rep.Direct)
	}
	checkStore(t, s, rep)

	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cycles/s", "play", "auto", "overhead", "store steps issued directly"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunCycles(t *testing.T) {
	s := openBolt(t)
	rep, err := Run(context.Background(), Config{Store: s, Players: 3, Guilds: 1, Cycles: 20, Populate: 50})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Load.Cycles != 60 || rep.TotalCycles != 60 {
		t.Errorf("cycles = %d (total %d), want 3 players × 20", rep.Load.Cycles, rep.TotalCycles)
	}
	checkStore(t, s, rep)
	// The populated players exist, with the guild's starting balance.
	p, err := s.Player(context.Background(), storage.PlayerID{Guild: GuildID(rep.Config.IDBase, 0), User: PopulateUserID(rep.Config.IDBase, 49)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Stats.Plays != 0 || p.Balance != rep.Config.Balance {
		t.Errorf("populated player: plays %d balance %d, want 0 and %d", p.Stats.Plays, p.Balance, rep.Config.Balance)
	}
	if rep.MemPopulated.HeapAlloc == 0 {
		t.Errorf("no memory figure after populating")
	}
}

// TestPayloadsParse checks that the simulated payloads are what discordgo
// expects from Discord.
func TestPayloadsParse(t *testing.T) {
	p := payloads{guild: "111", channel: "222", user: "333", locale: "fr", command: "play"}
	var i discordgo.Interaction
	if err := json.Unmarshal(p.slash(), &i); err != nil {
		t.Fatalf("slash: %v\n%s", err, p.buf)
	}
	if i.Type != discordgo.InteractionApplicationCommand || i.ApplicationCommandData().Name != "play" ||
		i.GuildID != "111" || i.ChannelID != "222" || i.Member == nil || i.Member.User.ID != "333" || i.Locale != discordgo.French {
		t.Errorf("slash parsed as %+v", i)
	}
	body := []byte(`{"content":"hi","components":[{"type":1,"components":[{"type":2,"label":"Auto","style":1,"custom_id":"x:1"}]}]}`)
	msg := message(nil, 42, "222", body)
	var j discordgo.Interaction
	if err := json.Unmarshal(p.click("x:\"1\"", msg), &j); err != nil {
		t.Fatalf("click: %v\n%s", err, p.buf)
	}
	if j.Type != discordgo.InteractionMessageComponent || j.MessageComponentData().CustomID != `x:"1"` {
		t.Errorf("click parsed as %+v", j)
	}
	if j.Message == nil || j.Message.ID != "42" || j.Message.Content != "hi" || len(j.Message.Components) != 1 {
		t.Fatalf("click message parsed as %+v", j.Message)
	}
	if id, ok := findButton(j.Message.Components, buttonAuto); !ok || id != "x:1" {
		t.Errorf("findButton(Auto) = %q, %v", id, ok)
	}
	if _, ok := findButton(j.Message.Components, buttonChest); ok {
		t.Errorf("found a chest button that is not there")
	}
	if i.ID == j.ID || i.Token == j.Token {
		t.Errorf("interaction ids or tokens repeat: %s %s", i.ID, j.ID)
	}
}

func TestHistogram(t *testing.T) {
	var h histogram
	for i := 100; i >= 1; i-- {
		h.add(int64(i))
	}
	// Below 128 ns every value has its own bucket: the figures are exact.
	l := h.summary()
	if l.N != 100 || l.P50 != 50 || l.P95 != 95 || l.P99 != 99 || l.Max != 100 || l.Mean != 50 {
		t.Errorf("1..100 ns: %+v", l)
	}
	var e histogram
	if got := e.summary(); got.N != 0 {
		t.Errorf("empty: %+v", got)
	}
	// Larger values keep a relative error under 1.6%.
	for _, v := range []int64{128, 1000, 65_432, 1_234_567, 987_654_321, 3_600_000_000_000} {
		var h histogram
		h.add(v)
		h.add(v)
		got := int64(h.summary().P50)
		if d := float64(got-v) / float64(v); d > 0.016 || d < -0.016 {
			t.Errorf("p50 of %d = %d (%.2f%% off)", v, got, 100*d)
		}
		if h.summary().Max != time.Duration(v) {
			t.Errorf("max of %d = %d", v, h.summary().Max)
		}
	}
	// Bucket boundaries are monotonic and values land in their bucket.
	prev := -1
	for v := int64(0); v < 1<<20; v += 97 {
		b := bucketOf(v)
		if b < prev {
			t.Fatalf("bucketOf(%d) = %d < %d", v, b, prev)
		}
		prev = b
	}
	var a, b2 histogram
	a.add(10)
	b2.add(30)
	a.merge(&b2)
	if s := a.summary(); s.N != 2 || s.Max != 30 || s.Mean != 20 {
		t.Errorf("merge: %+v", s)
	}
}

// TestDirectCycleChestDue plays direct cycles from a state where the chest
// is due before buying: the cycle opens it first, then plays.
func TestDirectCycleChestDue(t *testing.T) {
	ctx := context.Background()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "clefs.db"), storage.Options{
		Drawer:   keyDrawer{src: game.NewSecureSource()},
		Defaults: storage.Settings{StartingBalance: 10_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := storage.PlayerID{Guild: 1 << 60, User: 1<<60 + 1}
	// Three plays that each give a key leave the chest due.
	for range 3 {
		_, tk, _, err := s.Buy(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Reveal(ctx, id, tk.ID, storage.AllRows); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := s.Player(ctx, id); err != nil || !p.ChestPending {
		t.Fatalf("chest not due after three keys: %+v, %v", p, err)
	}
	calls, chests, err := DirectCycle(ctx, s, id)
	if err != nil {
		t.Fatalf("DirectCycle: %v", err)
	}
	if chests != 1 || calls != 5 { // Buy (refused), Player, OpenChest, Buy, Reveal
		t.Errorf("calls %d, chests %d; want 5 and 1", calls, chests)
	}
	p, err := s.Player(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Stats.Plays != 4 || p.Stats.Chests != 1 || p.Ticket.Open() {
		t.Errorf("after the cycle: plays %d chests %d ticket open %v", p.Stats.Plays, p.Stats.Chests, p.Ticket.Open())
	}
	if err := storage.CheckInvariant(p); err != nil {
		t.Error(err)
	}
}
