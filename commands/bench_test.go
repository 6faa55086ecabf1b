package commands

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// benchStore answers every call at once with canned state, so that the
// handler benchmarks measure the handlers' own overhead: routing, parsing,
// rendering, translation, the deferral timer — everything but the store
// and the network. (The stores have their own benchmarks.)
type benchStore struct {
	storage.Store
	p storage.Player
	t storage.Ticket
}

func newBenchStore() *benchStore {
	o, err := game.Play(rand.NewChaCha8([32]byte{9}), 1)
	if err != nil {
		panic(err)
	}
	t := storage.Ticket{ID: 41, Drawn: true, Outcome: o, KeysAfter: 1, Revealed: storage.AllRows}
	return &benchStore{
		p: storage.Player{ID: storage.PlayerID{Guild: testGuild, User: alice}, Balance: 123456, Keys: 1, Ticket: &t},
		t: t,
	}
}

func (s *benchStore) Settings(context.Context, uint64) (storage.Settings, error) {
	return storage.Settings{PublicPlays: true, DailyAmount: 500}, nil
}

func (s *benchStore) Player(context.Context, storage.PlayerID) (storage.Player, error) {
	return s.p, nil
}

func (s *benchStore) Buy(context.Context, storage.PlayerID) (storage.Player, storage.Ticket, bool, error) {
	t := storage.Ticket{ID: 42}
	return s.p, t, false, nil
}

func (s *benchStore) Reveal(_ context.Context, _ storage.PlayerID, id uint64, rows storage.RowMask) (storage.Player, storage.Ticket, error) {
	t := s.t
	t.ID, t.Revealed = id, rows
	return s.p, t, nil
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
		rows storage.RowMask
	}{{"hidden-en", a.cat.en, 0}, {"done-en", a.cat.en, storage.AllRows}, {"done-fr", a.cat.fr, storage.AllRows}} {
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

func BenchmarkHandlePlay(b *testing.B) {
	e := &env{t: b}
	benchHandle(b, e.slashPayload(alice, memberPerms, "fr", "play", ""))
}

func BenchmarkHandleReveal(b *testing.B) {
	e := &env{t: b}
	id := rowID(alice, 41, 1)
	benchHandle(b, e.clickPayload(alice, memberPerms, "en-US", cardWith(id), id))
}

func BenchmarkHandleAuto(b *testing.B) {
	e := &env{t: b}
	id := autoID(alice, 41)
	benchHandle(b, e.clickPayload(alice, memberPerms, "en-US", cardWith(id), id))
}

func BenchmarkHandleRules(b *testing.B) {
	e := &env{t: b}
	benchHandle(b, e.slashPayload(alice, memberPerms, "fr", "rules", ""))
}

func BenchmarkHandleStaleButton(b *testing.B) {
	e := &env{t: b}
	id := autoID(alice, 41)
	benchHandle(b, e.clickPayload(bob, memberPerms, "fr", cardWith(id), id))
}
