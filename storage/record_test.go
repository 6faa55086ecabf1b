package storage_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

var at = time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)

// validPlayer returns a sound player with an open, drawn ticket (row 0
// shown), a key and a chest opened before (from the keys of tickets 1 to 3).
func validPlayer(t *testing.T) game.Player {
	t.Helper()
	seed, err := game.NewSeed(storetest.Seeds(1))
	if err != nil {
		t.Fatal(err)
	}
	p := game.Player{
		StartingBalance: 1000, Balance: 1000 - 4*game.Stake + game.TierBarrel.Prize() + game.LotSilver.Prize(),
		Keys: 1, TicketSeq: 4, ChestSeq: 1, CreatedAt: at, Seed: seed, ClientSeed: "mine",
		Ticket:    &game.Ticket{ID: 4, BoughtAt: at, Drawn: true, KeysAfter: 1, Revealed: 0b001, Outcome: storetest.Win(game.TierBarrel)},
		LastChest: &game.Chest{Lot: game.LotSilver, Prize: game.LotSilver.Prize()},
		Stats: game.Stats{Plays: 4, StakedCents: 4 * game.Stake, WonCents: game.TierBarrel.Prize() + game.LotSilver.Prize(), Wins: 1, Chests: 1,
			BestWinCents: game.LotSilver.Prize(), Keys: 4},
		LastDaily: at,
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRecordRoundTrip(t *testing.T) {
	id := storage.PlayerID{Guild: 1, User: 2}
	p := validPlayer(t)
	h := []game.Entry{{At: at, Kind: game.KindPlay, TicketID: 1, Key: true, Amount: -game.Stake, Balance: 950}}
	dp, err := storetest.NewRecord(id, p, h).Player(nil)
	gotID, got, gh := dp.ID, dp.Player, dp.History
	if err != nil {
		t.Fatal(err)
	}
	if gotID != id || !reflect.DeepEqual(got, p) || !reflect.DeepEqual(gh, h) {
		t.Fatalf("round trip:\n got %v %+v %+v\nwant %v %+v %+v", gotID, got, gh, id, p, h)
	}
	// A closed ticket is the last ticket.
	p.Ticket.Revealed = game.AllRows
	r := storetest.NewRecord(id, p, nil)
	if r.OpenTicket != nil || r.LastTicket == nil {
		t.Fatalf("closed ticket recorded as %+v / %+v", r.OpenTicket, r.LastTicket)
	}
	if dp, err := r.Player(nil); err != nil || !reflect.DeepEqual(dp.Player, p) {
		got := dp.Player
		t.Fatalf("closed ticket round trip: %+v, %v", got, err)
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
		{"ticket seq", func(r *storage.Record) { r.TicketSeq = 3 }, "4 plays of 3 tickets"},
		{"rows", func(r *storage.Record) { r.OpenTicket.RevealedRows = 9 }, "revealed_rows"},
		{"closed ticket as open", func(r *storage.Record) { r.OpenTicket.RevealedRows = 7 }, "does not match"},
		{"drawn without outcome", func(r *storage.Record) { r.OpenTicket.Outcome = nil }, "outcome"},
		{"winning key", func(r *storage.Record) { r.OpenTicket.Outcome.Key = true }, "key on a winning play"},
		{"bad grid", func(r *storage.Record) { r.OpenTicket.Outcome.Grid = "GGGXXXGGG" }, "ticket 4"},
		{"created", func(r *storage.Record) { r.CreatedAt = time.Time{} }, "created_at"},
		{"seed", func(r *storage.Record) { r.Seed = "abcd" }, "seed"},
		{"history kind", func(r *storage.Record) {
			r.History = []storage.HistoryRecord{{At: r.CreatedAt, Kind: "steal"}}
		}, "kind"},
		{"chest", func(r *storage.Record) { r.LastChest = &storage.ChestRecord{Lot: 9, PrizeCents: 1} }, "chest"},
		// 2^63−1 + 2^63−1 + 2 wraps to 0 in 64 bits: the sums must be
		// checked without overflow.
		{"sums overflow", func(r *storage.Record) {
			r.Stats.GrantedCents, r.Stats.WonCents, r.Stats.DailyCents = math.MaxInt64, math.MaxInt64, 2
			r.Stats.BestWinCents = 0
		}, "balance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := storetest.NewRecord(storage.PlayerID{Guild: 1, User: 2}, validPlayer(t), nil)
			c.edit(&r)
			_, err := r.Player(nil)
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

// TestDecodeRefusesOverflow: a record whose sums only balance once they
// wrap around int64 is refused, named, and nothing is decoded (so nothing
// can be imported).
func TestDecodeRefusesOverflow(t *testing.T) {
	good := storetest.NewRecord(storage.PlayerID{Guild: 1, User: 2}, validPlayer(t), nil)
	bad := storetest.NewRecord(storage.PlayerID{Guild: 1, User: 3}, validPlayer(t), nil)
	// granted + won + daily = 2(2^63−1) + 2 = 2^64, which is 0 in 64 bits:
	// the balance start − staked would look right.
	bad.Stats.GrantedCents, bad.Stats.WonCents, bad.Stats.DailyCents = math.MaxInt64, math.MaxInt64, 2
	bad.BalanceCents = bad.StartingBalanceCents - bad.Stats.StakedCents
	d := &storage.Dump{Version: storage.LegacyDumpVersion, Players: []storage.Record{good, bad}}
	dd, err := d.Decode(nil)
	if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "players[1] (guild 1, user 3)") {
		t.Fatalf("Decode: %v, want ErrInvalid naming players[1] (guild 1, user 3)", err)
	}
	if dd != nil {
		t.Fatalf("Decode refused the dump but returned %d players", len(dd.Players))
	}
}

// TestDecodeVersion1: a version 1 dump has no seeds; each player gets a
// new one from the reader given, everything else as recorded.
func TestDecodeVersion1(t *testing.T) {
	var recs []storage.Record
	var want []game.Player
	for u := uint64(1); u <= 3; u++ {
		p := validPlayer(t)
		r := storetest.NewRecord(storage.PlayerID{Guild: 1, User: u}, p, nil)
		r.Seed, r.NextSeed, r.ClientSeed, r.SeedNo, r.SeedAfterTicket, r.SeedAfterChest, r.SeedCommittedAt = "", "", "", 0, 0, 0, nil
		recs = append(recs, r)
		want = append(want, p)
	}
	d := &storage.Dump{Version: 1, Players: recs}
	const per = 32 + 8 // a server seed, a client seed
	seeds := make([]byte, 0, 3*per)
	for i := range cap(seeds) {
		seeds = append(seeds, byte(i+1))
	}
	dd, err := d.Decode(bytes.NewReader(seeds))
	if err != nil {
		t.Fatal(err)
	}
	for i, dp := range dd.Players {
		var s game.Seed
		copy(s[:], seeds[per*i:])
		if dp.Player.Seed != s || dp.Player.ClientSeed != hex.EncodeToString(seeds[per*i+32:per*(i+1)]) {
			t.Fatalf("player %d: seeds not read from the reader", i)
		}
		// The new seeds draw the tickets to come only.
		// (and the open ticket, which has to be drawn)
		if dp.Player.SeedNo != 1 || dp.Player.SeedTicket != want[i].TicketSeq-1 || dp.Player.SeedChest != want[i].ChestSeq {
			t.Fatalf("player %d: seed %d from ticket %d, chest %d", i, dp.Player.SeedNo, dp.Player.SeedTicket, dp.Player.SeedChest)
		}
		dp.Player.Seed, dp.Player.ClientSeed, dp.Player.SeedNo = want[i].Seed, want[i].ClientSeed, want[i].SeedNo
		dp.Player.SeedTicket, dp.Player.SeedChest, dp.Player.SeedAt = want[i].SeedTicket, want[i].SeedChest, want[i].SeedAt
		if !reflect.DeepEqual(dp.Player, want[i]) {
			t.Fatalf("player %d:\n got %+v\nwant %+v", i, dp.Player, want[i])
		}
	}
	// Without a reader, or with one that fails, the dump is refused.
	if _, err := d.Decode(bytes.NewReader(nil)); err == nil {
		t.Fatal("a version 1 dump decoded without seeds")
	}
	// Other versions are refused.
	d.Version = storage.LegacyDumpVersion + 1
	if _, err := d.Decode(nil); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("version %d: %v", d.Version, err)
	}
}

func TestDecodeDuplicates(t *testing.T) {
	r := storetest.NewRecord(storage.PlayerID{Guild: 1, User: 2}, validPlayer(t), nil)
	d := &storage.Dump{Version: storage.LegacyDumpVersion, Players: []storage.Record{r, r}}
	if _, err := d.Decode(nil); !errors.Is(err, storage.ErrDuplicate) || !strings.Contains(err.Error(), "players[1]") {
		t.Fatalf("Decode of a player twice: %v", err)
	}
	g := storetest.NewGuildRecord(5, &game.Settings{StartingBalance: 1}, nil)
	d = &storage.Dump{Version: storage.LegacyDumpVersion, Guilds: []storage.GuildRecord{g, g}}
	if _, err := d.Decode(nil); !errors.Is(err, storage.ErrDuplicate) || !strings.Contains(err.Error(), "guilds[1]") {
		t.Fatalf("Decode of a guild twice: %v", err)
	}
}

// TestGuildRecordSettings: a dump's settings go through game's check, and
// a refusal is storage.ErrInvalid (the bounds themselves are tested in
// game).
func TestGuildRecordSettings(t *testing.T) {
	ok := []game.Settings{{}, {StartingBalance: game.MaxBalance, DailyAmount: game.MaxDailyAmount, DailyCooldown: game.MaxCooldown}}
	for _, s := range ok {
		if _, _, err := storetest.NewGuildRecord(5, &s, nil).Decode(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	bad := []game.Settings{{StartingBalance: -1}, {DailyAmount: -1}, {DailyCooldown: time.Nanosecond}, {DailyCooldown: -time.Hour}, {StartingBalance: game.MaxBalance + 1}}
	for _, s := range bad {
		if _, _, err := storetest.NewGuildRecord(5, &s, nil).Decode(); !errors.Is(err, storage.ErrInvalid) || !errors.Is(err, game.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", s, err)
		}
	}
}

// carePlayer returns validPlayer with every part of its responsible-play
// state set: limits in force and waiting (a raise and a removal), a
// reminder, a pause, spend and a session.
func carePlayer(t *testing.T) game.Player {
	t.Helper()
	p := validPlayer(t)
	p.Care = game.Care{
		Reminder:    15 * time.Minute,
		PausedUntil: at.Add(48 * time.Hour),
		Spend: game.Spend{Day: game.DayStart(at), Week: game.WeekStart(at),
			StakedDay: 100, WonDay: 50, StakedWeek: 300, WonWeek: 50},
		Session: game.Session{Start: at.Add(-time.Hour), Last: at, Plays: 12, Net: -250, CheckedAt: at.Add(-10 * time.Minute), CheckedPlays: 10},
	}
	p.Care.Limits[game.LimitStakeDay] = game.Limit{Amount: 500}
	p.Care.Limits[game.LimitStakeWeek] = game.Limit{Amount: 1000, Next: 2000, At: at.Add(game.RaiseDelay)}
	p.Care.Limits[game.LimitLossWeek] = game.Limit{Amount: 700, At: at.Add(game.RaiseDelay)} // its removal waits
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRecordCareRoundTrip(t *testing.T) {
	id := storage.PlayerID{Guild: 1, User: 2}
	p := carePlayer(t)
	h := []game.Entry{
		{At: at, Kind: game.KindPause, Balance: p.Balance},
		{At: at.Add(time.Hour), Kind: game.KindLift, Balance: p.Balance},
	}
	r := storetest.NewRecord(id, p, h)
	// Through JSON, as a dump goes.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"limits":{"loss-week":{"amount_cents":700,"next_at":`, `"stake-day":{"amount_cents":500}`,
		`"stake-week":{"amount_cents":1000,"next_cents":2000,"next_at":"2026-01-03T03:04:05.006Z"}`, `"reminder":"15m0s"`,
		`"paused_until":"2026-01-04T03:04:05.006Z"`, `"spend":{"day":"2026-01-02T00:00:00Z","week":"2025-12-29T00:00:00Z","staked_day_cents":100`,
		`"session":{"start":"2026-01-02T02:04:05.006Z"`, `"kind":"pause"`, `"kind":"lift-pause"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("record %s\nlacks %s", b, want)
		}
	}
	var back storage.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	dp, err := back.Player(nil)
	got, gh := dp.Player, dp.History
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, p) || !reflect.DeepEqual(gh, h) {
		t.Fatalf("round trip:\n got %+v %+v\nwant %+v %+v", got.Care, gh, p.Care, h)
	}
	// A player without care state writes none of it.
	b, err = json.Marshal(storetest.NewRecord(id, validPlayer(t), nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"limits", "reminder", "paused_until", "spend", "session"} {
		if strings.Contains(string(b), `"`+field+`"`) {
			t.Errorf("a player without care state has %q: %s", field, b)
		}
	}
}

func TestRecordCareValidation(t *testing.T) {
	cases := []struct {
		name string
		edit func(r *storage.Record)
		want string
	}{
		{"negative limit", func(r *storage.Record) { r.Limits["stake-day"] = storage.LimitRecord{AmountCents: -1} }, "limit stake-day"},
		{"limit too high", func(r *storage.Record) {
			r.Limits["loss-day"] = storage.LimitRecord{AmountCents: game.MaxLimit + 1}
		}, "limit loss-day"},
		{"unknown limit", func(r *storage.Record) { r.Limits["stake-month"] = storage.LimitRecord{AmountCents: 5} }, `unknown limit "stake-month"`},
		{"pending not looser", func(r *storage.Record) {
			l := r.Limits["stake-week"]
			l.NextCents = 900
			r.Limits["stake-week"] = l
		}, "not looser"},
		{"next without time", func(r *storage.Record) {
			r.Limits["stake-day"] = storage.LimitRecord{AmountCents: 500, NextCents: 600}
		}, `limits["stake-day"]: next_cents 600 without next_at`},
		{"reminder too short", func(r *storage.Record) { r.Reminder = "1m" }, "reminder"},
		{"reminder too long", func(r *storage.Record) { r.Reminder = "25h" }, "reminder"},
		{"reminder syntax", func(r *storage.Record) { r.Reminder = "soon" }, "reminder"},
		{"spend negative", func(r *storage.Record) { r.Spend.WonWeekCents = -1 }, "spend"},
		{"spend day not midnight", func(r *storage.Record) { d := r.Spend.Day.Add(time.Hour); r.Spend.Day = &d }, "spend day"},
		{"spend week not monday", func(r *storage.Record) { w := r.Spend.Week.AddDate(0, 0, 1); r.Spend.Week = &w }, "spend day"},
		{"session checked past plays", func(r *storage.Record) { r.Session.CheckedPlays = r.Session.Plays + 1 }, "session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := storetest.NewRecord(storage.PlayerID{Guild: 1, User: 2}, carePlayer(t), nil)
			c.edit(&r)
			_, err := r.Player(nil)
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

func TestGuildRecordHouse(t *testing.T) {
	set := game.Settings{StartingBalance: 1, DailyCooldown: time.Hour,
		House: game.House{MaxStakeDay: 2500, MinInterval: 3 * time.Second, RealityPlays: 40, RealityEvery: 20 * time.Minute}}
	g := storetest.NewGuildRecord(5, &set, nil)
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"house":{"max_stake_day_cents":2500,"min_interval":"3s","reality_plays":40,"reality_every":"20m0s"}`; !strings.Contains(string(b), want) {
		t.Fatalf("guild record %s\nlacks %s", b, want)
	}
	decode := func(g storage.GuildRecord) (game.Settings, error) {
		t.Helper()
		s, _, err := g.Decode()
		if err != nil {
			return game.Settings{}, err
		}
		return *s, nil
	}
	if s, err := decode(g); err != nil || s != set {
		t.Fatalf("round trip: %+v, %v; want %+v", s, err, set)
	}
	// No house rules is a choice, kept as such.
	none := set
	none.House = game.House{}
	if s, err := decode(storetest.NewGuildRecord(5, &none, nil)); err != nil || s != none {
		t.Fatalf("round trip of no house rules: %+v, %v", s, err)
	}
	// A record from before house rules gets the default ones.
	old := g
	o := *g.Settings
	o.House = nil
	old.Settings = &o
	if s, err := decode(old); err != nil || s.House != game.DefaultHouse {
		t.Fatalf("settings without a house: %+v, %v; want game.DefaultHouse", s, err)
	}
	for _, c := range []struct {
		edit func(h *storage.HouseRecord)
		want string
	}{
		{func(h *storage.HouseRecord) { h.MaxStakeDayCents = -1 }, "house stake limit"},
		{func(h *storage.HouseRecord) { h.MinInterval = "2h" }, "minimum interval"},
		{func(h *storage.HouseRecord) { h.MinInterval = "" }, "settings.house.min_interval"},
		{func(h *storage.HouseRecord) { h.RealityEvery = "1m" }, "reality check"},
		{func(h *storage.HouseRecord) { h.RealityPlays = game.MaxRealityPlay + 1 }, "reality check"},
	} {
		bad := g
		s := *g.Settings
		h := *s.House
		c.edit(&h)
		s.House = &h
		bad.Settings = &s
		if _, err := decode(bad); !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("house %+v: %v, want ErrInvalid mentioning %q", h, err, c.want)
		}
	}
}
