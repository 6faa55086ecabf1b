package cli

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// fakeStore is a storage.Store with a Dumper over fixed players, which
// it may hold in breach of the invariants (a real store refuses to write
// them): Load and Leaderboard read them, Close does nothing, and the rest
// of storage.Store is not there.
type fakeStore struct {
	storage.Store
	players []storage.DecodedPlayer
	refuse  error // Import's error
	got     *storage.DecodedDump
}

func (f *fakeStore) Close() error { return nil }

func (f *fakeStore) Load(_ context.Context, id storage.PlayerID) (storage.Versioned, error) {
	for _, p := range f.players {
		if p.ID == id {
			return storage.Versioned{Player: p.Player, Version: 1}, nil
		}
	}
	return storage.Versioned{}, nil
}

// Leaderboard gives the guild's players in their order, which audit does
// not look at.
func (f *fakeStore) Leaderboard(_ context.Context, guild uint64, n int, _ uint64) (storage.Board, error) {
	var b storage.Board
	for _, p := range f.players {
		if p.ID.Guild == guild && len(b.Top) < n {
			b.Top = append(b.Top, storage.LeaderboardEntry{User: p.ID.User, Balance: p.Player.Balance, Rank: len(b.Top) + 1})
		}
	}
	b.Players = len(b.Top)
	return b, nil
}

func (f *fakeStore) ExportPlayers(_ context.Context, fn func(storage.DecodedPlayer) error) error {
	for _, p := range f.players {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeStore) CountPlayers(context.Context) (int, error) { return len(f.players), nil }

func (f *fakeStore) ExportGuilds(context.Context, func(storage.DecodedGuild) error) error { return nil }

func (f *fakeStore) Import(_ context.Context, d *storage.DecodedDump) error {
	if f.refuse != nil {
		return f.refuse
	}
	f.got = d
	return nil
}

// soundPlayer is a player of guild 1 who was granted balance−start.
func soundPlayer(tb testing.TB, user uint64, start, balance int64) storage.DecodedPlayer {
	tb.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := game.NewPlayer(start, game.Seed{byte(user)}, "client", now)
	if err != nil {
		tb.Fatal(err)
	}
	if balance != start {
		s, err := game.Apply(p, game.Grant{Amount: balance, Set: true}, now)
		if err != nil {
			tb.Fatal(err)
		}
		p = s.Player
	}
	return storage.DecodedPlayer{ID: storage.PlayerID{Guild: 1, User: user}, Player: p}
}

// rotatedPlayer is soundPlayer after a rotation of its seeds, with the
// seed it revealed.
func rotatedPlayer(tb testing.TB, user uint64, start int64) storage.DecodedPlayer {
	tb.Helper()
	d := soundPlayer(tb, user, start, start)
	now := d.Player.CreatedAt.Add(time.Hour)
	p := d.Player.WithNextSeed(game.Seed{byte(user), 1})
	s, err := game.Apply(p, game.Rotate{Fresh: game.Seed{byte(user), 2}}, now)
	if err != nil {
		tb.Fatal(err)
	}
	if len(s.Reveals) == 0 {
		tb.Fatal("a rotation revealed no seed")
	}
	d.Player, d.Reveals = s.Player, s.Reveals
	return d
}

func TestAuditReportsBreachesInCredits(t *testing.T) {
	f := &fakeStore{players: []storage.DecodedPlayer{
		soundPlayer(t, 1, 2000, 24950),
		soundPlayer(t, 2, 1000, 1000),
		rotatedPlayer(t, 6, 1000),
	}}
	var out bytes.Buffer
	if err := audit(context.Background(), f, f, &out, false); err != nil {
		t.Fatalf("audit of sound players: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "3 players checked, 0 damaged, 0 breaches, 269.50 credits held in total") {
		t.Fatalf("report:\n%s", out.String())
	}

	// A balance that does not add up, one whose sum overflows int64 (a
	// wrapped sum must not pass for a balanced one), a player without a
	// seed, and a kept reveal that is the player's current seed.
	bad := soundPlayer(t, 3, 1000, 1000)
	bad.Player.Balance++
	wrap := soundPlayer(t, 4, 1000, 1000)
	wrap.Player.Stats.GrantedCents = 2 // 2 + won + daily = 2^64, which wraps to 0 in int64
	wrap.Player.Stats.WonCents = math.MaxInt64
	wrap.Player.Stats.DailyCents = math.MaxInt64
	noSeed := soundPlayer(t, 5, 1000, 1000)
	noSeed.Player.Seed = game.Seed{}
	badReveal := rotatedPlayer(t, 7, 1000)
	badReveal.Reveals = slices.Clone(badReveal.Reveals)
	badReveal.Reveals[0].Seed = badReveal.Player.Seed
	f.players = append(f.players, bad, wrap, noSeed, badReveal)
	out.Reset()
	err := audit(context.Background(), f, f, &out, false)
	if !errors.Is(err, errAudit) || ExitCode(err) != 1 {
		t.Fatalf("audit of broken players: %v", err)
	}
	for _, want := range []string{"BREACH guild 1 user 3", "BREACH guild 1 user 4", "BREACH guild 1 user 5", "BREACH guild 1 user 7", " 4 breaches", "269.50 credits held"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestImportNamesTheRefusedRecord(t *testing.T) {
	good := soundPlayer(t, 1, 2000, 2500)
	bad := soundPlayer(t, 2, 1000, 1000)
	bad.Player.Stats.Plays = 3 // staked ≠ plays × stake
	_, err := storage.ReadDump(bytes.NewReader(encodeDump(t, good, bad)))
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "players[1] (guild 1, user 2)") {
		t.Fatalf("decode of a bad record: %v", err)
	}
	d, err := storage.ReadDump(bytes.NewReader(encodeDump(t, good)))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeStore{refuse: errors.New("players[0] (guild 1, user 1): storage: duplicate record")}
	var out bytes.Buffer
	if err := importDump(context.Background(), f, d, &out); err == nil || !strings.Contains(err.Error(), "nothing was imported") || out.Len() != 0 {
		t.Fatalf("refused import: %v, %q", err, out.String())
	}
	f.refuse = nil
	if err := importDump(context.Background(), f, d, &out); err != nil || f.got != d ||
		!strings.Contains(out.String(), "imported 1 player (25.00 credits held) and 0 guilds") {
		t.Fatalf("import: %v, %q", err, out.String())
	}
}

// TestAuditWords: the audit's counts agree with their number ("1 player
// checked", "0 breaches") and one credit is singular, as the bot writes it.
func TestAuditWords(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{count(0, "player", "players"), "0 players"},
		{count(1, "player", "players"), "1 player"},
		{count(2, "player", "players"), "2 players"},
		{count(int64(1), "entry", "entries"), "1 entry"},
		{count(0, "breach", "breaches"), "0 breaches"},
		{bigCredits(big.NewInt(0)), "0.00 credits"},
		{bigCredits(big.NewInt(50)), "0.50 credits"},
		{bigCredits(big.NewInt(100)), "1.00 credit"},
		{bigCredits(big.NewInt(200)), "2.00 credits"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
