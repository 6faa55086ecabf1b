package cli

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// fakeStore is a storage.Store (only Close is called) with a Dumper over
// fixed players and, when drift is not nil, an Indexer reporting it.
type fakeStore struct {
	storage.Store
	players []storage.DecodedPlayer
	drift   []storage.IndexDrift
	rebuilt int
	refuse  error // Import's error
	got     *storage.DecodedDump
}

func (f *fakeStore) Close() error { return nil }

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

// indexedStore adds the Indexer.
type indexedStore struct{ *fakeStore }

func (f indexedStore) CheckIndex(_ context.Context, fn func(storage.IndexDrift) error) error {
	for _, d := range f.drift {
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

func (f indexedStore) RebuildIndex(context.Context) (int, error) {
	n := len(f.drift)
	f.rebuilt += n
	f.drift = nil
	return n, nil
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
		s, err := p.SetBalance(balance, now)
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
	s, err := p.Rotate(game.Seed{byte(user), 2}, now)
	if err != nil {
		tb.Fatal(err)
	}
	if s.Reveal == nil {
		tb.Fatal("a rotation revealed no seed")
	}
	d.Player, d.Reveals = s.Player, game.Reveals{*s.Reveal}
	return d
}

func TestAuditReportsBreachesInCredits(t *testing.T) {
	f := &fakeStore{players: []storage.DecodedPlayer{
		soundPlayer(t, 1, 2000, 24950),
		soundPlayer(t, 2, 1000, 1000),
		rotatedPlayer(t, 6, 1000),
	}}
	var out bytes.Buffer
	if err := audit(context.Background(), f, f, false, &out); err != nil {
		t.Fatalf("audit of sound players: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "3 players checked, 0 breaches, 269.50 credits held in total") {
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
	err := audit(context.Background(), f, f, false, &out)
	if !errors.Is(err, errAudit) || ExitCode(err) != 1 {
		t.Fatalf("audit of broken players: %v", err)
	}
	for _, want := range []string{"BREACH guild 1 user 3", "BREACH guild 1 user 4", "BREACH guild 1 user 5", "BREACH guild 1 user 7", " 4 breaches", "269.50 credits held"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestAuditIndexDriftAndRepair(t *testing.T) {
	f := &fakeStore{players: []storage.DecodedPlayer{soundPlayer(t, 1, 2000, 2000)}, drift: []storage.IndexDrift{
		{ID: storage.PlayerID{Guild: 1, User: 1}, Balance: 2000, Indexed: 1950, Player: true, Index: true},
		{ID: storage.PlayerID{Guild: 1, User: 7}, Indexed: 500, Index: true},
		{ID: storage.PlayerID{Guild: 2, User: 8}, Balance: 24950, Player: true},
	}}
	st := indexedStore{f}
	var out bytes.Buffer
	err := audit(context.Background(), st, f, false, &out)
	if !errors.Is(err, errAudit) || !strings.Contains(err.Error(), "audit -repair") {
		t.Fatalf("audit with drift: %v", err)
	}
	for _, want := range []string{
		"DRIFT guild 1 user 1: holds 20.00 credits, the leaderboard says 19.50 credits",
		"DRIFT guild 1 user 7: in the leaderboard with 5.00 credits but no such player",
		"DRIFT guild 2 user 8: holds 249.50 credits but is missing from the leaderboard",
		"3 entries drifted",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := audit(context.Background(), st, f, true, &out); err != nil {
		t.Fatalf("audit -repair: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "rebuilt: 3 entries changed") || !strings.Contains(out.String(), "0 entries drifted") {
		t.Fatalf("repair report:\n%s", out.String())
	}
	// A store that keeps its index with the players has nothing to repair.
	out.Reset()
	if err := audit(context.Background(), f, f, true, &out); err != nil || !strings.Contains(out.String(), "nothing to repair") {
		t.Fatalf("repair without an index: %v\n%s", err, out.String())
	}
}

func TestImportNamesTheRefusedRecord(t *testing.T) {
	good := soundPlayer(t, 1, 2000, 2500)
	bad := soundPlayer(t, 2, 1000, 1000)
	bad.Player.Stats.Plays = 3 // staked ≠ plays × stake
	dump := func(ps ...storage.DecodedPlayer) string {
		var b bytes.Buffer
		f := &fakeStore{players: ps}
		if err := storage.WriteDump(context.Background(), &b, f); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	_, err := decodeDump(strings.NewReader(dump(good, bad)), noSeeds{})
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "players[1] (guild 1, user 2)") {
		t.Fatalf("decode of a bad record: %v", err)
	}
	d, err := decodeDump(strings.NewReader(dump(good)), noSeeds{})
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
