package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// testHistory: lines are appended in order and read newest first; the
// store keeps the last game.MaxTicketLines ticket lines and, apart, the
// last game.MaxOtherLines others, and merges them back in order: a run of
// plays, a run of grants, then mostly plays. Many grants never push a
// ticket out, nor many tickets a grant. (Lines from before the split, kept
// with the tickets, no move writes any more: game's
// TestMergeHistoryOldLines covers them.)
func testHistory(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	id := pid(1)
	var all []game.Entry // oldest first, as the steps wrote them
	step := func(m game.Move) storage.Applied {
		t.Helper()
		e.clock.Advance(time.Second)
		a := e.must(id, "step", m)
		all = append(all, a.History...)
		return a
	}
	check := func(full bool) {
		t.Helper()
		// What is kept: the last of each list, in the order written.
		var main, others []game.Entry
		for _, l := range all {
			if game.MainLine(l) {
				main = append(main, l)
			} else {
				others = append(others, l)
			}
		}
		kept := map[game.Entry]bool{}
		for _, l := range main[max(0, len(main)-game.MaxTicketLines):] {
			kept[l] = true
		}
		for _, l := range others[max(0, len(others)-game.MaxOtherLines):] {
			kept[l] = true
		}
		var newest []game.Entry
		for i := len(all) - 1; i >= 0; i-- {
			if kept[all[i]] {
				newest = append(newest, all[i])
			}
		}
		if full != (len(newest) == storage.HistoryLimit) {
			t.Fatalf("the test keeps %d lines: it shows nothing", len(newest))
		}
		for _, n := range []int{0, 1, 7, 60, storage.HistoryLimit, storage.HistoryLimit + 100} {
			h, err := e.st.History(e.ctx, id, n)
			if err != nil {
				t.Fatal(err)
			}
			want := newest[:min(n, len(newest))]
			if len(h) != len(want) || len(want) > 0 && !slices.Equal(h, want) {
				t.Fatalf("History(%d) = %d lines %+v…, want %d lines %+v…", n, len(h), h[:min(len(h), 2)], len(want), want[:min(len(want), 2)])
			}
		}
	}
	d := &Drawer{} // no key, so no chest
	step(grant(200 * game.Stake))
	for i := range 260 {
		if i == 150 {
			check(false) // the first tickets, then the last grants
		}
		if i < 40 || i >= 150 && i%3 != 0 { // a run of tickets, then mostly tickets
			step(reveal(d, step(game.Buy{}).Result.Ticket, game.AllRows))
		} else { // a run of grants, then some
			step(grant(1))
		}
	}
	check(true)
	// Another player's history is its own.
	e.must(pid(2), "grant", grant(5))
	if h, err := e.st.History(e.ctx, pid(2), 10); err != nil || len(h) != 1 || h[0].Amount != 5 {
		t.Fatalf("history of another player: %+v, %v", h, err)
	}
	if h, _ := e.st.History(e.ctx, id, storage.HistoryLimit); len(h) != storage.HistoryLimit {
		t.Fatalf("history of player 1 changed to %d lines", len(h))
	}
}

// testAudit: entries go to their guild's log, newest first, the last
// AuditLimit kept, from player steps and guild updates alike.
func testAudit(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	entry := func(g uint64, i int) game.AuditEntry {
		return game.AuditEntry{At: e.clock.Now(), Guild: g, Actor: mod, Target: uint64(1 + i%5), Action: "grant", Amount: int64(i + 1), Reason: fmt.Sprintf("reason %d « ünïcode »", i)}
	}
	// writeAudit applies a moderator's grant whose entry is entry(g, i).
	writeAudit := func(g uint64, i int) error {
		a := entry(g, i)
		return errOf(e.apply(storage.PlayerID{Guild: g, User: a.Target}, game.Grant{Amount: a.Amount, By: game.Moderator{Guild: g, Actor: mod, Target: a.Target, Reason: a.Reason}}))
	}
	// The bulk of the log, written at once (one commit for many writers
	// where the store can); their order among themselves is the store's.
	const bulk = storage.AuditLimit
	race(t, bulk, func(i int) error { return writeAudit(guild, i) })
	// Then, in order: player steps, a guild update, and another guild's.
	var last []game.AuditEntry // newest first
	for i := bulk; i < bulk+6; i++ {
		e.clock.Advance(time.Second)
		if err := writeAudit(guild, i); err != nil {
			t.Fatal(err)
		}
		last = append([]game.AuditEntry{entry(guild, i)}, last...)
	}
	e.clock.Advance(time.Second)
	set := defaults
	set.DailyAmount = 5
	ga := e.setSettings(guild, "settings", set, "guild").Audit
	last = append([]game.AuditEntry{*ga}, last...)
	if err := writeAudit(guild2, 0); err != nil {
		t.Fatal(err)
	}

	got, err := e.st.Audit(e.ctx, guild, storage.AuditLimit+10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != storage.AuditLimit {
		t.Fatalf("%d entries kept, want %d", len(got), storage.AuditLimit)
	}
	same(t, "the newest entries", got[:len(last)], last)
	// The oldest entries were dropped: the bulk's first writes are gone,
	// each entry is there once.
	seen := map[string]bool{}
	for _, a := range got {
		if a.Guild != guild || seen[a.Reason] {
			t.Fatalf("entry %+v of another guild or twice", a)
		}
		seen[a.Reason] = true
	}
	if got2, _ := e.st.Audit(e.ctx, guild, 3); !slices.Equal(got2, last[:3]) {
		t.Fatalf("Audit(3) = %+v, want %+v", got2, last[:3])
	}
	if a, err := e.st.Audit(e.ctx, guild2, 10); err != nil || len(a) != 1 || a[0].Guild != guild2 {
		t.Fatalf("another guild's log: %+v, %v", a, err)
	}
	if a, err := e.st.Audit(e.ctx, 333, 10); err != nil || len(a) != 0 {
		t.Fatalf("an empty guild's log: %+v, %v", a, err)
	}
}

// board computes a guild's leaderboard from what Load reads.
func board(t *testing.T, e *env, g uint64, users []uint64) []storage.LeaderboardEntry {
	t.Helper()
	var all []storage.LeaderboardEntry
	for _, u := range users {
		v := e.load(storage.PlayerID{Guild: g, User: u})
		if v.Exists() {
			all = append(all, storage.LeaderboardEntry{User: u, Balance: v.Player.Balance})
		}
	}
	storage.SortLeaderboard(all)
	for i := range all {
		all[i].Rank = i + 1
	}
	return all
}

// checkBoard compares the store's leaderboard with want for several n and
// for every player's own row.
func checkBoard(t *testing.T, e *env, g uint64, want []storage.LeaderboardEntry) {
	t.Helper()
	for _, n := range []int{0, 1, 3, 10, 100, len(want), len(want) + 50} {
		b, err := e.st.Leaderboard(e.ctx, g, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		w := want[:min(n, len(want))]
		if len(b.Top) != len(w) || len(w) > 0 && !slices.Equal(b.Top, w) || b.You != nil || b.Players != len(want) {
			t.Fatalf("Leaderboard(%d, %d): %d rows, you %v, %d players; want %d rows, %d players\n got %v\nwant %v",
				g, n, len(b.Top), b.You, b.Players, len(w), len(want), b.Top[:min(5, len(b.Top))], w[:min(5, len(w))])
		}
	}
	for _, row := range want {
		b, err := e.st.Leaderboard(e.ctx, g, 5, row.User)
		if err != nil {
			t.Fatal(err)
		}
		if b.You == nil || *b.You != row {
			t.Fatalf("Leaderboard(%d, 5, %d): you %+v, want %+v", g, row.User, b.You, row)
		}
	}
}

// testLeaderboard: ~200 players with random balances (ties included); the
// top n and every player's rank match a sort of what Load reads, ties by
// user ID, lowest first; moves up and down follow; other guilds' players
// never appear.
func testLeaderboard(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	r := rand.New(rand.NewPCG(5, 6))
	users := make([]uint64, 200)
	for i := range users {
		users[i] = 1 + uint64(r.IntN(1_000_000))*1_000_003
	}
	slices.Sort(users)
	users = slices.Compact(users)
	balance := func() int64 {
		if r.IntN(4) == 0 {
			return int64(r.IntN(5)) * 100 // ties
		}
		return int64(r.IntN(100_000))
	}
	setAll := func(g uint64, users []uint64, bal func() int64) {
		t.Helper()
		bs := make([]int64, len(users))
		for i := range bs {
			bs[i] = bal()
		}
		race(t, len(users), func(i int) error {
			return errOf(e.apply(storage.PlayerID{Guild: g, User: users[i]}, setBalance(bs[i])))
		})
	}
	setAll(guild, users, balance)
	// Richer players of another guild, some with the same user IDs.
	other := append(slices.Clone(users[:20]), 7, 8, 9)
	setAll(guild2, other, func() int64 { return game.MaxBalance - int64(r.IntN(10)) })

	want := board(t, e, guild, users)
	if len(want) != len(users) {
		t.Fatalf("%d players loaded of %d", len(want), len(users))
	}
	checkBoard(t, e, guild, want)
	if b, err := e.st.Leaderboard(e.ctx, guild, 10, 7); err != nil || b.You != nil {
		t.Fatalf("a player of another guild has a row: %+v, %v", b.You, err)
	}
	if b, err := e.st.Leaderboard(e.ctx, 333, 10, 1); err != nil || len(b.Top) != 0 || b.You != nil || b.Players != 0 {
		t.Fatalf("empty guild: %+v, %v", b, err)
	}

	// Moves: the last goes first, the first goes last, a middle one ties
	// another.
	last, first, mid := want[len(want)-1].User, want[0].User, want[len(want)/2]
	e.must(pid(last), "set", setBalance(want[0].Balance+1))
	e.must(pid(first), "set", setBalance(0))
	tie := want[len(want)/3]
	e.must(pid(mid.User), "tie", setBalance(tie.Balance))
	want = board(t, e, guild, users)
	if want[0].User != last || want[len(want)-1].Balance != 0 {
		t.Fatalf("after the moves, top %+v, bottom %+v", want[0], want[len(want)-1])
	}
	checkBoard(t, e, guild, want)
	checkBoard(t, e, guild2, board(t, e, guild2, other))
}

// testPlayers: a guild's players in increasing user order, whatever the
// order they were created in; fn's error stops the walk and comes back as
// is.
func testPlayers(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	r := rand.New(rand.NewPCG(1, 2))
	var users []uint64
	for range 40 {
		users = append(users, r.Uint64N(1<<62)+1)
	}
	users = append(users, 1, ^uint64(0), 1<<63)
	for _, u := range users {
		e.must(pid(u), "grant", grant(1))
	}
	e.must(storage.PlayerID{Guild: guild2, User: 5}, "grant", grant(1))
	e.must(storage.PlayerID{Guild: guild + 1, User: 5}, "grant", grant(1))
	slices.Sort(users)
	users = slices.Compact(users)
	same(t, "players", playersOf(t, e.st, guild), users)
	same(t, "players of guild2", playersOf(t, e.st, guild2), []uint64{5})
	if got := playersOf(t, e.st, 333); len(got) != 0 {
		t.Fatalf("players of an empty guild: %v", got)
	}
	stop := errors.New("stop")
	n := 0
	err := e.st.Players(e.ctx, guild, func(uint64) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 { //nolint:errorlint // the contract: as is
		t.Fatalf("Players stopped after %d calls with %v, want 3 and fn's error as is", n, err)
	}
	// fn may use the store (a guild's reset applies a step to each player).
	if err := e.st.Players(e.ctx, guild, func(u uint64) error { return errOf(e.apply(pid(u), grant(1))) }); err != nil {
		t.Fatal(err)
	}
	if p := e.load(pid(users[0])).Player; p.Stats.GrantedCents != 2 {
		t.Fatalf("a step applied from Players' fn: granted %d", p.Stats.GrantedCents)
	}
}

// testGuild: defaults until written; RunGuild writes the guild as the
// move leaves it, bumps the version, fills in and logs the audit entry.
// A repeat, a move that changes nothing and a refused step write nothing,
// whichever the store: a move's error comes back as is, a step Check
// refuses as ErrInvalid. The last MaxGuildOps operations are kept, and a
// reset-guild's progress and end are written step by step.
func testGuild(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	g0, err := e.st.Guild(e.ctx, guild)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "never written", g0, storage.VersionedGuild{Guild: game.Guild{Settings: defaults}})
	set := game.Settings{StartingBalance: 777, DailyAmount: 10, DailyCooldown: 36 * time.Hour, PublicPlays: true, Channel: 42,
		House: game.House{MaxStakeDay: 2500, MinInterval: 2 * time.Second, RealityPlays: 30, RealityEvery: 45 * time.Minute}}
	ap1 := e.setSettings(guild, "op-1", set, "first")
	g1 := ap1.Guild
	want := game.AuditEntry{At: e.clock.Now(), Guild: guild, Actor: mod, Action: game.ActionSettings, Reason: "(game's words)"}
	if ap1.Audit != nil && ap1.Audit.Reason != "" {
		want.Reason = ap1.Audit.Reason // what changed, cut at MaxReason
	}
	if ap1.Repeated || ap1.Pending || g1.Version == 0 || g1.Settings != set || !slices.Equal(g1.Ops, []string{"op-1"}) || g1.Reset != nil || ap1.Audit == nil || *ap1.Audit != want {
		t.Fatalf("first RunGuild: %+v, audit %+v", ap1, ap1.Audit)
	}
	got, _ := e.st.Guild(e.ctx, guild)
	same(t, "Guild after RunGuild", got, g1)
	if au, _ := e.st.Audit(e.ctx, guild, 5); len(au) != 1 || au[0] != want {
		t.Fatalf("audit: %+v", au)
	}
	if g2, _ := e.st.Guild(e.ctx, guild2); g2.Settings != defaults || g2.Version != 0 {
		t.Fatalf("another guild: %+v", g2)
	}

	// A repeat, a step that changes nothing (starting the reset in
	// progress again) and what is refused write nothing and log nothing.
	if ap, err := e.runGuild(guild, "op-1", game.ChangeSettings{Patch: FullPatch(defaults)}); err != nil || !ap.Repeated || ap.Audit != nil {
		t.Fatalf("a repeat: %+v, %v", ap, err)
	}
	e.mustGuild(guild, "rg:1", game.BeginReset{Actor: mod})
	g1, _ = e.st.Guild(e.ctx, guild)
	if ap, err := e.runGuild(guild, "rg:1", game.BeginReset{Actor: mod}); err != nil || !ap.Pending || !reflect.DeepEqual(ap.Guild, g1) {
		t.Fatalf("a step that changes nothing: %+v, %v; want %+v", ap, err, g1)
	}
	negative, odd := int64(-1), time.Second+time.Microsecond // odd: the schema keeps whole milliseconds
	for name, tt := range map[string]struct {
		op   string
		move game.GuildMove
		want error
	}{
		"a move's error":          {"rg:2", game.EndReset{Holder: "h"}, game.ErrNoReset},
		"invalid settings":        {"op-2", game.ChangeSettings{Patch: game.SettingsPatch{DailyAmount: &negative}}, game.ErrInvalid},
		"settings not kept as is": {"op-2", game.ChangeSettings{Patch: game.SettingsPatch{MinInterval: &odd}}, storage.ErrInvalid},
		"a reason too long":       {"rg:2", game.BeginReset{Actor: mod, Reason: strings.Repeat("é", game.MaxReason+1)}, game.ErrInvalid},
		"no operation":            {"", game.ChangeSettings{}, storage.ErrInvalid},
		"an operation too long":   {strings.Repeat("o", game.MaxOpID+1), game.ChangeSettings{}, storage.ErrInvalid},
		"no move":                 {"op-2", nil, storage.ErrInvalid},
		"another reset's running": {"rg:2", game.BeginReset{Actor: mod}, game.ErrResetRunning},
	} {
		ap, err := e.runGuild(guild, tt.op, tt.move)
		wantErr(t, name, err, tt.want)
		if ap.Audit != nil || !(reflect.DeepEqual(ap.Guild, g1) || ap.Guild.Version == 0 && errors.Is(err, storage.ErrInvalid)) {
			t.Fatalf("%s: %+v, audit %+v; want the guild as it is (none if Check refused the step)", name, ap, ap.Audit)
		}
	}
	got, _ = e.st.Guild(e.ctx, guild)
	same(t, "after a repeat and refusals", got, g1)
	if au, _ := e.st.Audit(e.ctx, guild, 5); len(au) != 1 {
		t.Fatalf("refusals wrote the audit log: %+v", au)
	}

	// A reset-guild's progress, step by step, and its log line at the end.
	const rg = "rg:1"
	var ap storage.GuildApplied
	for _, m := range []game.GuildMove{
		game.Lease{Holder: "host", TTL: time.Minute},
		game.Progress{Holder: "host", After: 40, Count: 2, TTL: time.Minute},
		game.Progress{Holder: "host", After: 40, Count: 2, TTL: time.Minute}, // a retry: counted once
		game.Progress{Holder: "host", After: 1 << 63, Count: 1, TTL: time.Minute},
	} {
		if ap, err = e.runGuild(guild, rg, m); err != nil || !ap.Pending || ap.Audit != nil {
			t.Fatalf("reset-guild in progress: %+v, %v", ap, err)
		}
	}
	if got, _ = e.st.Guild(e.ctx, guild); got.Reset == nil || got.Reset.Count != 3 || got.Reset.After != 1<<63 || got.Reset.Finished() || got.Has(rg) {
		t.Fatalf("reset-guild in progress as stored: %+v", got.Reset)
	}
	ap, err = e.runGuild(guild, rg, game.EndReset{Holder: "host"})
	if err != nil || ap.Pending || ap.Audit == nil || ap.Audit.Action != game.ActionResetGuild || ap.Audit.Amount != 3 || !ap.Guild.Has(rg) {
		t.Fatalf("reset-guild's end: %+v, %v", ap, err)
	}
	if au, _ := e.st.Audit(e.ctx, guild, 1); len(au) != 1 || au[0] != *ap.Audit {
		t.Fatalf("reset-guild's log line: %+v, want %+v", au, *ap.Audit)
	}

	// The last MaxGuildOps operations kept, oldest first; a repeat writes
	// nothing and logs nothing.
	before := ap.Guild.Version
	var ops []string
	for i := range game.MaxGuildOps + 6 {
		op := fmt.Sprintf("settings-%d", i)
		ops = append(ops, op)
		s := set
		s.DailyAmount = int64(i + 1)
		ap = e.setSettings(guild, op, s, fmt.Sprintf("daily %d", i+1))
		if ap.Repeated || ap.Audit == nil || ap.Audit.Guild != guild || !strings.HasSuffix(ap.Audit.Reason, fmt.Sprintf(" daily %d", i+1)) {
			t.Fatalf("settings %d: %+v, audit %+v", i, ap, ap.Audit)
		}
	}
	if g := ap.Guild; !slices.Equal(g.Ops, ops[len(ops)-game.MaxGuildOps:]) || g.Settings.DailyAmount != int64(len(ops)) || g.Version != before+uint64(len(ops)) {
		t.Fatalf("after %d updates: version %d, %d ops %v…, daily %d", len(ops), g.Version, len(g.Ops), g.Ops[:2], g.Settings.DailyAmount)
	}
	got, _ = e.st.Guild(e.ctx, guild)
	same(t, "Guild after many updates", got, ap.Guild)
	repeat := e.setSettings(guild, ops[len(ops)-1], defaults, "again")
	if !repeat.Repeated || repeat.Audit != nil || repeat.Guild.Version != ap.Guild.Version || repeat.Guild.Settings != ap.Guild.Settings {
		t.Fatalf("a repeat: %+v", repeat)
	}
	if au, _ := e.st.Audit(e.ctx, guild, storage.AuditLimit); len(au) != 2+len(ops) {
		t.Fatalf("%d audit entries, want %d", len(au), 2+len(ops))
	}
}

// testGuildRacing: concurrent RunGuilds each record their operation
// once, none lost, and a repeat is recognised.
func testGuildRacing(t *testing.T, open OpenFunc) {
	e := newEnv(t, open, defaults)
	const n = 24
	var repeats atomic.Int64
	race(t, n, func(i int) error {
		op := fmt.Sprintf("op-%02d", i)
		for range 2 { // the second is a repeat
			balance := int64(i + 1)
			ap, err := e.runGuild(guild, op, game.ChangeSettings{Patch: game.SettingsPatch{StartingBalance: &balance}, Actor: mod, Reason: op})
			if err != nil {
				return err
			}
			if ap.Repeated {
				repeats.Add(1)
			}
		}
		return nil
	})
	g, err := e.st.Guild(e.ctx, guild)
	if err != nil {
		t.Fatal(err)
	}
	ops := slices.Clone(g.Ops)
	slices.SortFunc(ops, cmp.Compare)
	if g.Version != n || len(ops) != n || len(slices.Compact(ops)) != n || repeats.Load() != n {
		t.Fatalf("after %d racing updates (%d repeats): %+v", n, repeats.Load(), g)
	}
	// Each step saw the last one's settings: every one changed them, and
	// the last wrote those the guild has.
	if au, _ := e.st.Audit(e.ctx, guild, 2*n); len(au) != n || !strings.HasSuffix(au[0].Reason, fmt.Sprintf("op-%02d", g.Settings.StartingBalance-1)) {
		t.Fatalf("%d audit entries after %d racing updates, the last %+v, settings %+v", len(au), n, au, g.Settings)
	}
}
