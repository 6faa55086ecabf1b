package storage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
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

func TestDumpV4RoundTrip(t *testing.T) {
	p := carePlayer(t)
	h := []game.Entry{{At: at, Kind: game.KindPause, Balance: p.Balance}, {At: at, Kind: game.KindReset, Balance: p.Balance, Fair: true}}
	in := storage.DecodedPlayer{ID: storage.PlayerID{Guild: 812345678901234567, User: 2}, Player: p, History: h}
	b := encode(t, &storage.DecodedDump{Players: []storage.DecodedPlayer{in}})
	if !bytes.Contains(b, []byte(`"version": 5`)) || !bytes.Contains(b, []byte(`"guild": "812345678901234567"`)) || !bytes.Contains(b, []byte(`"d": 0`)) {
		t.Fatalf("dump %s", b)
	}
	d, err := storage.ReadDump(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != storage.DumpVersion || len(d.Players) != 1 || !reflect.DeepEqual(d.Players[0], in) {
		t.Fatalf("read back %+v\nwant %+v", d.Players, in)
	}
	// Version 4, before resets recorded the ticket they threw away: the
	// same records, its reset a line that does not say (unchecked).
	v4 := regexp.MustCompile(`,\s*"d": 0`).ReplaceAll(bytes.Replace(b, []byte(`"version": 5`), []byte(`"version": 4`), 1), nil)
	in.History[1].Fair = false
	if d, err = storage.ReadDump(bytes.NewReader(v4)); err != nil || d.Version != 4 || !reflect.DeepEqual(d.Players[0], in) {
		t.Fatalf("version 4 read back %+v, %v\nwant %+v", d, err, in)
	}
}

// TestDumpV4Guilds: a version 4 dump's guilds are in the schema (the
// guild's ID a string, its settings as a guild record's s, its log oldest
// first, without the ids the Redis store gives its lines); they read back
// as they were. TestDumpRefusalNamesTheField refuses wrong ones.
func TestDumpV4Guilds(t *testing.T) {
	set := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: 90 * time.Minute, PublicPlays: true, Channel: 1234567890123456789,
		House: game.House{MaxStakeDay: 4000, MinInterval: 3 * time.Second, RealityPlays: 40, RealityEvery: 45 * time.Minute}}
	g := storage.DecodedGuild{Guild: 812345678901234567, Settings: &set, Audit: []game.AuditEntry{
		{At: at, Guild: 812345678901234567, Actor: 9, Action: game.ActionSettings, Reason: "first"},
		{At: at.Add(time.Hour), Guild: 812345678901234567, Actor: 9, Target: 11, Action: game.ActionGrant, Amount: 300, Reason: "second"},
	}}
	none := storage.DecodedGuild{Guild: 3, Audit: []game.AuditEntry{{At: at, Guild: 3, Actor: 9, Action: game.ActionLiftPause}}}
	good := encode(t, &storage.DecodedDump{Guilds: []storage.DecodedGuild{g, none}})
	var raw struct {
		Guilds []schema.DumpGuild `json:"guilds"`
	}
	if err := json.Unmarshal(good, &raw); err != nil {
		t.Fatal(err)
	}
	if want := schema.NewDumpGuild(g.Guild, g.Settings, g.Audit); !reflect.DeepEqual(raw.Guilds[0], want) || raw.Guilds[1].Settings != nil {
		t.Fatalf("dump's guilds %+v; want %+v first", raw.Guilds, want)
	}
	d, err := storage.ReadDump(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Guilds) != 2 || !reflect.DeepEqual(d.Guilds[0], g) || !reflect.DeepEqual(d.Guilds[1], none) {
		t.Fatalf("read back %+v\nwant %+v, %+v", d.Guilds, g, none)
	}
}

// TestStorageDocBounds: docs/STORAGE.md gives the bounds the code has.
func TestStorageDocBounds(t *testing.T) {
	b, err := os.ReadFile("../docs/STORAGE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	n := func(v int64) string { return game.FormatRat(big.NewRat(v, 1), 0, game.English) }
	for _, want := range []string{
		"a balance in 0.." + n(game.MaxBalance) + " cents",
		"| `b` | cents | balance, 0.." + n(game.MaxBalance) + " |",
		"bounded by 2^53−1 (" + n(game.MaxSeq) + ")",
		fmt.Sprintf("keys held, 0..%d", game.MaxKeys-1),
		fmt.Sprintf("each chest takes three: %d ×", game.MaxKeys),
		"the bonus (0.." + n(game.MaxDailyAmount) + ")",
		"the grant (±" + n(game.MaxGrant) + ")",
		"`reset` (±" + n(game.MaxBalance) + ")",
		"cents at most " + n(game.MaxLimit),
		fmt.Sprintf("%d minutes to %d hours", int(game.MinReminder.Minutes()), int(game.MaxReminder.Hours())),
		fmt.Sprintf("its last %d ticket lines", game.MaxTicketLines),
		fmt.Sprintf("its last %d other lines", game.MaxOtherLines),
		fmt.Sprintf("**Revealed seed** (the last %d per player)", game.MaxReveals),
		fmt.Sprintf("**Operation remembered** (the last %d per player)", game.MaxOps),
		fmt.Sprintf("1 to %d bytes", game.MaxOpID),
		fmt.Sprintf("at most %d bytes", game.MaxOpID),
		fmt.Sprintf("the guild's last %d operations", game.MaxGuildOps),
		"the last " + n(storage.AuditLimit) + " per guild",
		fmt.Sprintf("at most %d characters", game.MaxReason),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/STORAGE.md does not say %q", want)
		}
	}
}

// TestDumpRefusalNamesTheField edits one field of a sound dump at a time:
// each edit is refused, naming the record and the field by its stored name
// (docs/STORAGE.md), with no Go struct in the message; the dump unedited
// imports. Among them, what a release imported although the bot could not
// play it (a ticket or chest number at 2^63−1).
func TestDumpRefusalNamesTheField(t *testing.T) {
	dp := storetest.PlayedPlayer(t, storage.PlayerID{Guild: 1, User: 2}, rand.NewChaCha8([32]byte{5}), 20, 7)
	dp.Player.Care = carePlayer(t).Care
	set := game.Settings{StartingBalance: 700, DailyAmount: 5, DailyCooldown: time.Hour, Channel: 5,
		House: game.House{MaxStakeDay: 4000, MinInterval: 3 * time.Second, RealityPlays: 40, RealityEvery: 45 * time.Minute}}
	audit := []game.AuditEntry{{At: at, Guild: 1, Actor: 9, Target: 2, Action: game.ActionGrant, Amount: 300, Reason: "r"}}
	good := encode(t, &storage.DecodedDump{Players: []storage.DecodedPlayer{dp}, Guilds: []storage.DecodedGuild{{Guild: 1, Settings: &set, Audit: audit}}})
	if _, err := storage.ReadDump(bytes.NewReader(good)); err != nil {
		t.Fatalf("the sound dump is refused: %v", err)
	}
	type del struct{}
	const p, g = "players.0.", "guilds.0."
	for _, c := range []struct {
		path string
		to   any // del{}: the field is removed
		want string
	}{
		{"version", "4", `field version: a JSON string does not fit`},
		{p + "guild", "0", "field guild:"},
		{p + "user", del{}, "field user:"},
		{p + "p.f", 2, "field f:"},
		{p + "p.xx", 1, `unknown field "xx"`},
		{p + "user", "0", "field user:"},
		{p + "p.b", -1, "field b, b0, st.g, st.w, st.d, st.s:"},
		{p + "p.b", "12", "field p.b: a JSON string does not fit"},
		{p + "p.b0", 1, "field b, b0,"},
		{p + "p.k", 3, "field k:"},
		{p + "p.cd", true, "field cd, k:"},
		{p + "p.tn", 1, "field st.n, tn:"},
		{p + "p.tn", int64(1<<63 - 1), "field tn"},
		{p + "p.cn", int64(1<<63 - 1), "field cn"},
		{p + "p.cn", 9, "field cn, cd, k, tn:"},
		{p + "p.t.n", 99, "field t.n:"},
		{p + "p.t.at", del{}, "field t.at:"},
		{p + "p.t.ka", 5, "field t.ka:"},
		{p + "p.t.r", 9, "field t.r:"},
		{p + "p.t.o.tr", "ruby", "field t.o.tr:"},
		{p + "p.t.o.p", 7, "field t.o:"},
		{p + "p.t.o.g", "GGGGGGGGG", "field t.o:"},
		{p + "p.lc.l", "ruby", "field lc.l:"},
		{p + "p.lc.p", 3, "field lc.p:"},
		{p + "p.st.n", -1, "field st.n:"},
		{p + "p.st.s", 10, "st.d, st.s:"},
		{p + "p.st.c", 99, "field st.c, cn:"},
		{p + "p.st.bw", -1, "field st.bw:"},
		{p + "p.st.wn", -1, "field st.wn:"},
		{p + "p.st.k", -1, "field st.k:"},
		{p + "p.ld", -1, "field ld:"},
		{p + "p.ca", del{}, "field ca:"},
		{p + "p.ca", int64(1) << 60, "field ca:"},
		{p + "p.sd", del{}, "field sd:"},
		{p + "p.sd.s", "00", "field sd.s:"},
		{p + "p.sd.n", "zz", "field sd.n:"},
		{p + "p.sd.c", "a\x00", "field sd.c:"},
		{p + "p.sd.no", -1, "field sd.no:"},
		{p + "p.sd.t", 99, "field sd.t, tn:"},
		{p + "p.sd.ch", 99, "field sd.ch:"},
		{p + "p.sd.at", -5, "field sd.at:"},
		{p + "p.cr.l.stake-day.a", -1, "field cr.l.stake-day:"},
		{p + "p.cr.l.stake-week.n", 10, "field cr.l.stake-week:"},
		{p + "p.cr.l.stake-year", map[string]any{"a": 1}, "field cr.l:"},
		{p + "p.cr.rm", 1, "field cr.rm:"},
		{p + "p.cr.pu", -1, "field cr.pu:"},
		{p + "p.cr.sp.d", 1, "field cr.sp.d, cr.sp.w:"},
		{p + "p.cr.sp.w", 1, "field cr.sp.d, cr.sp.w:"},
		{p + "p.cr.sp.sd", -1, "field cr.sp.sd:"},
		{p + "p.cr.sp.ww", -1, "field cr.sp.ww:"},
		{p + "p.cr.se.n", -1, "field cr.se.n, cr.se.cp:"},
		{p + "p.cr.se.cp", 99, "field cr.se.n, cr.se.cp:"},
		{p + "p.cr.se.s", -1, "field cr.se.s:"},
		{p + "h.0.at", del{}, "h[0]: field at:"},
		{p + "h.0.k", "lottery", "h[0]: field k:"},
		{p + "h.0.t", del{}, "h[0]: field t:"},
		{p + "h.0.a", 7, "h[0]: field a:"},
		{p + "h.0.b", -1, "h[0]: field b:"},
		{p + "h.0.kb", 5, "h[0]: field kb:"},
		{p + "h.0.g", "GGGGGGGGG", "h[0]: field g:"},
		{p + "h.0.cm", "zz", "h[0]: field cm:"},
		{p + "h.0.n", 5, "h[0]: field n:"},
		{p + "r.0.no", 0, "r[0]: field no:"},
		{p + "r.0.no", 9, "r[0]: field no:"},
		{p + "r.0.s", "zz", "r[0]: field s:"},
		{p + "r.0.c", "a\x00", "r[0]: field c:"},
		{p + "r.0.t1", 0, "r[0]: field t1, t2:"},
		{p + "r.0.t2", 99, "r[0]: field t1, t2:"},
		{p + "r.0.c1", 0, "r[0]: field c1, c2:"},
		{p + "r.0.ca", -1, "r[0]: field ca:"},
		{p + "r.0.ra", del{}, "r[0]: field ra:"},
		{p + "r.0.nc", "zz", "r[0]: field nc:"},
		{g + "guild", "x", "field guild:"},
		{g + "guild", 1, "field guild"},
		{g + "s.zz", 1, `unknown field "zz"`},
		{g + "s.b0", -1, "field s.b0:"},
		{g + "s.d", -1, "field s.d:"},
		{g + "s.dc", -1, "field s.dc:"},
		{g + "s.ch", "general", "field s.ch:"},
		{g + "s.h.sd", -1, "field s.h.sd:"},
		{g + "s.h.mi", -1, "field s.h.mi:"},
		{g + "s.h.rp", -1, "field s.h.rp:"},
		{g + "s.h.re", 1, "field s.h.re:"},
		{g + "audit.0.at", del{}, "audit[0]: field at:"},
		{g + "audit.0.ac", "x", "audit[0]: field ac:"},
		{g + "audit.0.tg", "x", "audit[0]: field tg:"},
		{g + "audit.0.x", "", "audit[0]: field x:"},
		{g + "audit.0.rs", strings.Repeat("x", 201), "audit[0]: field rs:"},
		{g + "audit.0.id", "s:1", "field audit[0].id:"},
	} {
		t.Run(fmt.Sprintf("%s=%v", c.path, c.to), func(t *testing.T) {
			var m any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			keys := strings.Split(c.path, ".")
			at := m
			for _, k := range keys[:len(keys)-1] {
				if i, err := strconv.Atoi(k); err == nil {
					at = at.([]any)[i]
				} else {
					at = at.(map[string]any)[k]
				}
			}
			last, obj := keys[len(keys)-1], at.(map[string]any)
			if _, ok := c.to.(del); ok {
				delete(obj, last)
			} else {
				obj[last] = c.to
			}
			b, _ := json.Marshal(m)
			_, err := storage.ReadDump(bytes.NewReader(b))
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), c.want) || strings.ContainsAny(err.Error(), "{}") || strings.Contains(err.Error(), "Go ") {
				t.Errorf("ReadDump: %v\nwant ErrInvalid naming %q, and no Go struct", err, c.want)
			}
		})
	}
}
