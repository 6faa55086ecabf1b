package commands

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// benchStore answers every call at once with canned state, so that the
// handler benchmarks measure the handlers' own overhead: routing, parsing,
// rendering, translation, the deferral timer and the game's transition —
// everything but the store and the network. (The stores have their own
// benchmarks.) Run applies the step to the canned player and keeps nothing,
// remembering no operation.
type benchStore struct {
	storage.Store
	p game.Player
	t game.Ticket
}

func newBenchStore() *benchStore {
	o, err := game.SeededDrawer{}.Ticket(game.Seed{9}, "", 1, 1)
	if err != nil {
		panic(err)
	}
	keys := 1
	if o.Key {
		keys = 2
	}
	t := game.Ticket{ID: 41, Drawn: true, Outcome: o, KeysAfter: keys, Revealed: game.AllRows}
	p := game.Player{
		Balance: 123456, Keys: keys, TicketSeq: 41, Ticket: &t, Seed: game.Seed{1},
		Stats: game.Stats{Plays: 41, StakedCents: 41 * game.Stake, WonCents: o.Prize},
	}
	p.StartingBalance = p.Balance + p.Stats.StakedCents - p.Stats.WonCents
	if err := p.Check(); err != nil {
		panic(err)
	}
	return &benchStore{p: p, t: t}
}

func (s *benchStore) Guild(context.Context, uint64) (storage.VersionedGuild, error) {
	return storage.VersionedGuild{Guild: game.Guild{Settings: game.Settings{PublicPlays: true, DailyAmount: 500}}}, nil
}

func (s *benchStore) Load(context.Context, storage.PlayerID) (storage.Versioned, error) {
	return storage.Versioned{Player: s.p, Version: 1}, nil
}

func (s *benchStore) Run(_ context.Context, step storage.Step) (storage.Applied, error) {
	r, err := storage.Start(step)
	if err != nil {
		return storage.Applied{}, err
	}
	_, out, err := r.Next(storage.Versioned{Player: s.p, Version: 1})
	return out, err
}

// Reveals answers that the canned player revealed no seed.
func (s *benchStore) Reveals(context.Context, storage.PlayerID) (game.Reveals, error) {
	return nil, nil
}

// nopResponder drops the responses.
type nopResponder struct{}

func (nopResponder) Respond(context.Context, *discordgo.Interaction, *discordgo.InteractionResponse) error {
	return nil
}
func (nopResponder) EditOriginal(context.Context, *discordgo.Interaction, *discordgo.WebhookEdit) error {
	return nil
}
func (nopResponder) FollowUp(context.Context, *discordgo.Interaction, *discordgo.WebhookParams) error {
	return nil
}

func BenchmarkRenderCard(b *testing.B) {
	a := New(Config{Logger: discardLogger()}, nil)
	s := newBenchStore()
	for _, c := range []struct {
		name string
		l    *lang
		rows game.RowMask
	}{{"hidden-en", a.cat.en, 0}, {"done-en", a.cat.en, game.AllRows}, {"done-fr", a.cat.fr, game.AllRows}} {
		b.Run(c.name, func(b *testing.B) {
			v := &ticketView{user: alice, p: s.p, t: s.t}
			v.t.Revealed = c.rows
			v.t.Drawn = c.rows != 0
			b.ReportAllocs()
			for b.Loop() {
				_ = a.ticketCard(c.l, v)
			}
		})
	}
}

// benchHandle runs Handle on payloads decoded once and reports the p99 of
// the handler overhead besides the mean.
func benchHandle(b *testing.B, i *discordgo.Interaction) {
	a := New(Config{Logger: discardLogger()}, newBenchStore())
	ctx := context.Background()
	var r nopResponder
	b.ReportAllocs()
	durations := make([]time.Duration, 0, 1<<16)
	for b.Loop() {
		t0 := time.Now()
		a.Handle(ctx, r, i)
		if len(durations) < cap(durations) {
			durations = append(durations, time.Since(t0))
		}
	}
	slices.Sort(durations)
	if n := len(durations); n > 0 {
		b.ReportMetric(float64(durations[n*99/100].Nanoseconds()), "p99-ns")
	}
}

// BenchmarkHandle runs benchHandle on a command, a reveal, Auto, /rules
// and a button pressed by another than its owner.
func BenchmarkHandle(b *testing.B) {
	e := &env{t: b}
	row, auto := rowID(alice, 41, 1), autoID(alice, 41)
	for _, c := range []struct {
		name string
		i    *discordgo.Interaction
	}{
		{"Play", e.slashPayload(alice, memberPerms, "fr", "play", "")},
		{"Reveal", e.clickPayload(alice, memberPerms, "en-US", cardWith(row), row)},
		{"Auto", e.clickPayload(alice, memberPerms, "en-US", cardWith(auto), auto)},
		{"Rules", e.slashPayload(alice, memberPerms, "fr", "rules", "")},
		{"StaleButton", e.clickPayload(bob, memberPerms, "fr", cardWith(auto), auto)},
	} {
		b.Run(c.name, func(b *testing.B) { benchHandle(b, c.i) })
	}
}
