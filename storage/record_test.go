package storage_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

func validPlayer() storage.Player {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	return storage.Player{
		ID: storage.PlayerID{Guild: 1, User: 2}, StartingBalance: 1000, Balance: 1000 - 100 + 50,
		Keys: 1, TicketSeq: 2, CreatedAt: at,
		Ticket: &storage.Ticket{ID: 2, BoughtAt: at, Drawn: true, KeysAfter: 1, Revealed: 0b001,
			Outcome: game.Outcome{Tier: game.TierBarrel, Prize: 50, Row: 1, Grid: game.Grid{0, 1, 2, 5, 5, 5, 0, 1, 2}}},
		Stats: storage.Stats{Plays: 2, StakedCents: 100, WonCents: 50, Wins: 1, BestWinCents: 50, Keys: 1},
	}
}

func TestRecordRoundTrip(t *testing.T) {
	p := validPlayer()
	h := []storage.HistoryEntry{{At: p.CreatedAt, Kind: storage.KindPlay, TicketID: 1, Key: true, Amount: -50, Balance: 950}}
	got, gh, err := storage.NewRecord(p, h).Player()
	if err != nil {
		t.Fatal(err)
	}
	if got.Ticket == nil || *got.Ticket != *p.Ticket || got.Stats != p.Stats || got.Balance != p.Balance || len(gh) != 1 || gh[0] != h[0] {
		t.Fatalf("round trip: %+v %+v", got, gh)
	}
}

func TestRecordValidation(t *testing.T) {
	cases := []struct {
		name string
		edit func(r *storage.Record)
		want string
	}{
		{"no guild", func(r *storage.Record) { r.GuildID = 0 }, "player id"},
		{"balance", func(r *storage.Record) { r.BalanceCents++ }, "balance"},
		{"keys", func(r *storage.Record) { r.Keys = 5 }, "keys"},
		{"staked", func(r *storage.Record) { r.Stats.StakedCents += 50; r.BalanceCents -= 50 }, "staked"},
		{"ticket id", func(r *storage.Record) { r.TicketSeq = 1 }, "ticket id"},
		{"rows", func(r *storage.Record) { r.OpenTicket.RevealedRows = 9 }, "revealed_rows"},
		{"closed ticket as open", func(r *storage.Record) { r.OpenTicket.RevealedRows = 7 }, "does not match"},
		{"drawn without outcome", func(r *storage.Record) { r.OpenTicket.Outcome = nil }, "outcome"},
		{"winning loss", func(r *storage.Record) { r.OpenTicket.Outcome.Key = true }, "winning outcome"},
		{"created", func(r *storage.Record) { r.CreatedAt = time.Time{} }, "created_at"},
		{"history kind", func(r *storage.Record) {
			r.History = []storage.HistoryRecord{{At: r.CreatedAt, Kind: "steal"}}
		}, "kind"},
		{"chest", func(r *storage.Record) { r.LastChest = &storage.ChestRecord{Lot: 9, PrizeCents: 1} }, "chest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := storage.NewRecord(validPlayer(), nil)
			c.edit(&r)
			_, _, err := r.Player()
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

func TestValidateSettings(t *testing.T) {
	ok := []storage.Settings{{}, {StartingBalance: storage.MaxBalance, DailyAmount: storage.MaxDailyAmount, DailyCooldown: storage.MaxCooldown}}
	for _, s := range ok {
		if err := storage.ValidateSettings(s); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	bad := []storage.Settings{{StartingBalance: -1}, {DailyAmount: -1}, {DailyCooldown: time.Nanosecond}, {DailyCooldown: -time.Hour}}
	for _, s := range bad {
		if err := storage.ValidateSettings(s); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", s, err)
		}
	}
}
