package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// populate gives e's store players of two guilds in every state (tickets
// closed, drawn and open, not drawn, a chest due, a chest opened, daily
// claims, grants, a reset; responsible-play limits in force and waiting, a
// reminder, a pause), guild settings with house rules, and audit entries.
func populate(t *testing.T, e *env) []storage.PlayerID {
	t.Helper()
	d := RandomDrawer(7)
	keys := &Drawer{PlayFunc: func(int) game.Outcome { return Loss(true) }}
	// by names the moderator of a step on id, with reason.
	by := func(id storage.PlayerID, reason string) game.Moderator {
		return game.Moderator{Guild: id.Guild, Actor: mod, Target: id.User, Reason: reason}
	}
	var ids []storage.PlayerID
	for _, g := range []uint64{guild, guild2} {
		for u := uint64(1); u <= 4; u++ {
			id := storage.PlayerID{Guild: g, User: u * 1_000_000_007}
			ids = append(ids, id)
			for range int(u) + 2 {
				e.clock.Advance(time.Minute)
				a := e.play(id, d)
				if a.Player.ChestDue {
					e.must(id, "chest", openChest(d, a.Player.ChestSeq+1))
				}
			}
			e.must(id, "daily", game.ClaimDaily{Amount: 25, Cooldown: time.Hour})
		}
	}
	now := e.clock.Now
	// guild: one ticket drawn and partly shown, one bought and not drawn,
	// a chest due; grants, a balance set, a reset.
	a := e.must(ids[1], "buy", game.Buy{})
	e.must(ids[1], "reveal", reveal(d, a.Result.Ticket, 0b100))
	e.must(ids[2], "buy", game.Buy{})
	// Seeds revealed: a client seed chosen, then a rotation, with plays
	// under each.
	e.must(ids[0], "client seed", setClientSeed(e, "dé « ünïcode »"))
	e.play(ids[0], d)
	e.must(ids[0], "rotate", rotate(e))
	e.play(ids[0], d)
	for !e.load(ids[3]).Player.ChestDue {
		e.play(ids[3], keys)
	}
	e.must(ids[0], "grant", game.Grant{Amount: 500, By: by(ids[0], "gift « ünïcode »")})
	e.must(ids[1], "set balance", game.Grant{Amount: 4321, Set: true, By: by(ids[1], "")})
	e.must(ids[2], "reset", game.Reset{Start: 1500, By: by(ids[2], "fresh start")})
	// Responsible play (game/care.go): limits, one of them raised (the
	// raise waits), a reminder; guild2's ids[5] paused.
	e.must(ids[0], "limits", setLimits(20*time.Minute,
		game.LimitSet{Kind: game.LimitStakeDay, Amount: 5000}, game.LimitSet{Kind: game.LimitLossWeek, Amount: 3000}))
	e.must(ids[0], "raise", setLimits(-1, game.LimitSet{Kind: game.LimitStakeDay, Amount: 0}))
	e.must(ids[5], "pause", game.Pause{Until: now().Add(72 * time.Hour)})
	// guild2: settings with house rules, and their audit entry.
	set := game.Settings{StartingBalance: 2500, DailyAmount: 40, DailyCooldown: 36 * time.Hour, PublicPlays: true, Channel: 42,
		House: game.House{MaxStakeDay: 4000, MinInterval: 1500 * time.Millisecond, RealityPlays: 25, RealityEvery: 30 * time.Minute}}
	e.setSettings(guild2, "settings-1", set, "setup")
	// A third guild with a record and no audit entry: a change of nothing.
	e.mustGuild(333, "settings-1", game.ChangeSettings{})
	return ids
}

// dumperEnv is newEnv with the suite's defaults, skipping the test unless
// the store is a storage.Dumper.
func dumperEnv(t *testing.T, open OpenFunc) *env {
	t.Helper()
	e := newEnv(t, open, defaults)
	if _, ok := e.st.(storage.Dumper); !ok {
		t.Skip("the store is not a storage.Dumper")
	}
	return e
}

// writeDump returns the dump of st, as storage.WriteDump writes it.
func writeDump(t *testing.T, st storage.Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := storage.WriteDump(context.Background(), &buf, st.(storage.Dumper)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// exportDump returns what st holds, as storage.ExportDump reads it.
func exportDump(t *testing.T, st storage.Store) *storage.DecodedDump {
	t.Helper()
	d, err := storage.ExportDump(context.Background(), st.(storage.Dumper))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// encodeDump returns d as storage.EncodeDump writes it.
func encodeDump(t *testing.T, d *storage.DecodedDump) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := storage.EncodeDump(&buf, d); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readDump reads and validates a dump with storage.ReadDump.
func readDump(t *testing.T, data []byte) *storage.DecodedDump {
	t.Helper()
	d, err := storage.ReadDump(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// contents returns what st holds of player id: its record, its history and
// its reveals.
func contents(t *testing.T, st storage.Store, id storage.PlayerID) (storage.Versioned, []game.Entry, game.Reveals) {
	t.Helper()
	ctx := context.Background()
	v, err1 := st.Load(ctx, id)
	h, err2 := st.History(ctx, id, storage.HistoryLimit)
	rs, err3 := st.Reveals(ctx, id)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	return v, h, rs
}

// sameStores checks that b holds what a holds, as read through the
// contract: players (but for the version, which a dump does not carry),
// history, reveals, audit, settings, leaderboards and player lists.
func sameStores(t *testing.T, a, b storage.Store, ids []storage.PlayerID, guilds []uint64) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		va, ha, ra := contents(t, a, id)
		vb, hb, rb := contents(t, b, id)
		if !vb.Exists() {
			t.Fatalf("player %v not imported", id)
		}
		pa, pb := va.Player, vb.Player
		same(t, fmt.Sprintf("imported player %v", id), pb, pa)
		same(t, fmt.Sprintf("imported history of %v", id), hb, ha)
		if len(ra) != 0 || len(rb) != 0 {
			same(t, fmt.Sprintf("imported reveals of %v", id), rb, ra)
		}
	}
	for _, g := range guilds {
		ga, _ := a.Guild(ctx, g)
		gb, _ := b.Guild(ctx, g)
		if ga.Settings != gb.Settings || (ga.Version == 0) != (gb.Version == 0) {
			t.Fatalf("guild %d imported as %+v, want %+v", g, gb, ga)
		}
		aa, _ := a.Audit(ctx, g, storage.AuditLimit)
		ab, _ := b.Audit(ctx, g, storage.AuditLimit)
		same(t, "imported audit", ab, aa)
		ba, _ := a.Leaderboard(ctx, g, 100, ids[0].User)
		bb, _ := b.Leaderboard(ctx, g, 100, ids[0].User)
		same(t, "imported leaderboard", bb, ba)
		same(t, "imported players", playersOf(t, b, g), playersOf(t, a, g))
	}
}

// testDumpRoundTrip: export, write, read and import into a fresh store
// give the same contents, and the same dump, byte for byte; the
// responsible-play state and the house rules are in their own fields, and
// hold after the import.
func testDumpRoundTrip(t *testing.T, open OpenFunc) {
	e := dumperEnv(t, open)
	ids := populate(t, e)
	data := writeDump(t, e.st)
	sameBytes(t, "EncodeDump(ExportDump) and WriteDump", encodeDump(t, exportDump(t, e.st)), data)
	d := readDump(t, data)
	if d.Version != storage.DumpVersion || len(d.Players) != len(ids) || len(d.Guilds) != 3 {
		t.Fatalf("dump version %d of %d players, %d guilds; want %d, %d, 3", d.Version, len(d.Players), len(d.Guilds), storage.DumpVersion, len(ids))
	}
	for i := 1; i < len(d.Players); i++ {
		a, b := d.Players[i-1].ID, d.Players[i].ID
		if a.Guild > b.Guild || a.Guild == b.Guild && a.User >= b.User {
			t.Fatalf("players not ordered by guild, user: %v before %v", a, b)
		}
	}
	if len(d.Guilds[0].Audit) != 3 || d.Guilds[1].Settings == nil || d.Guilds[0].Settings != nil || len(d.Guilds[2].Audit) != 0 {
		t.Fatalf("guild records: %+v", d.Guilds)
	}
	// The dump carries each player's reveals and history as the store
	// reads them.
	for _, p := range d.Players {
		rs := e.reveals(p.ID)
		h := mustHistory(t, e, p.ID)
		slices.Reverse(h)
		if len(p.Reveals) != len(rs) || len(rs) > 0 && !reflect.DeepEqual(p.Reveals, rs) || !reflect.DeepEqual(p.History, h) {
			t.Fatalf("player %v dumped with reveals %+v, history of %d lines; the store has %+v, %d lines", p.ID, p.Reveals, len(p.History), rs, len(h))
		}
	}
	if len(d.Players[0].Reveals) != 2 {
		t.Fatalf("player %v dumped with %d reveals, want 2", d.Players[0].ID, len(d.Players[0].Reveals))
	}
	raw := readRawDump(t, data)
	c, paused := raw.Players[0].Player.Care, raw.Players[5].Player.Care
	if c == nil || paused == nil || c.Limits["stake-day"].At == 0 || c.Limits["loss-week"].Amount != 3000 || c.Reminder != (20*time.Minute).Milliseconds() ||
		c.Spend == nil || c.Session == nil || paused.Paused == 0 || raw.Guilds[1].Settings.House == nil {
		t.Fatalf("the dump lacks the care state:\n%s", data)
	}
	e2 := newEnv(t, open, defaults)
	sameBytes(t, "dump of an empty store", writeDump(t, e2.st), fmt.Appendf(nil, "{\n  \"version\": %d,\n  \"players\": [],\n  \"guilds\": []\n}\n", storage.DumpVersion))
	if err := e2.st.(storage.Dumper).Import(e2.ctx, d); err != nil {
		t.Fatal(err)
	}
	sameStores(t, e.st, e2.st, ids, []uint64{guild, guild2, 333})
	sameBytes(t, "export → import → export", writeDump(t, e2.st), data)
	// The imported leaderboards are the imported balances.
	for _, g := range []uint64{guild, guild2} {
		if err := boardAgrees(e2.ctx, e2.st, g); err != nil {
			t.Fatal(err)
		}
	}
	// The imported store plays on: the open tickets resume, the chest is due.
	a := e2.must(ids[1], "buy after import", game.Buy{})
	if !a.Result.Resumed || a.Player.Ticket.Revealed != 0b100 || !a.Player.Ticket.Drawn {
		t.Fatalf("buy after import: %+v", a.Result)
	}
	if _, err := e2.apply(ids[3], game.Buy{}); err == nil {
		t.Fatal("buy with a chest due after import succeeded")
	}
	e2.must(ids[3], "chest after import", openChest(RandomDrawer(1), e2.load(ids[3]).Player.ChestSeq+1))
	wantErr(t, "buy of a paused player after import", errOf(e2.apply(ids[5], game.Buy{})), game.ErrPaused)
}

// sameBytes fails the test unless got is want, showing where they part.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s, from byte %d:\n%s\n---want\n%s", what, i, got[max(0, i-200):min(len(got), i+200)], want[max(0, i-200):min(len(want), i+200)])
	}
}

// testImportDuplicate: a player or guild already in the store is
// ErrDuplicate, naming the record, and nothing of the dump is written.
func testImportDuplicate(t *testing.T, open OpenFunc) {
	e := dumperEnv(t, open)
	ids := populate(t, e)
	d := readDump(t, writeDump(t, e.st))

	target := newEnv(t, open, defaults)
	last := ids[len(ids)-1] // the dump's last player
	target.must(last, "grant", grant(1))
	before := writeDump(t, target.st)
	im := target.st.(storage.Dumper)
	// A fresh copy of d, for an Import that could keep what it is given.
	decode := func(d *storage.DecodedDump) *storage.DecodedDump {
		return readDump(t, encodeDump(t, d))
	}
	err := im.Import(target.ctx, decode(d))
	wantErr(t, "Import of a player in the store", err, storage.ErrDuplicate)
	if !strings.Contains(err.Error(), "players[7]") {
		t.Fatalf("error %q does not name players[7]", err)
	}
	sameBytes(t, "a refused import changed the store", writeDump(t, target.st), before)
	// A guild with settings, then one with audit entries only.
	target.mustGuild(333, "x", game.ChangeSettings{})
	before = writeDump(t, target.st)
	d.Players = d.Players[:len(d.Players)-1]
	err = im.Import(target.ctx, decode(d))
	wantErr(t, "Import of a guild in the store", err, storage.ErrDuplicate)
	if !strings.Contains(err.Error(), "guilds[2]") {
		t.Fatalf("error %q does not name guilds[2]", err)
	}
	sameBytes(t, "a refused import changed the store", writeDump(t, target.st), before)
	fresh := newEnv(t, open, defaults)
	fresh.must(storage.PlayerID{Guild: guild, User: 5}, "grant", grant(1))
	fresh.must(storage.PlayerID{Guild: guild, User: 5}, "moderator's grant", game.Grant{Amount: 1, By: game.Moderator{Guild: guild, Actor: mod, Target: 5}})
	before = writeDump(t, fresh.st)
	d.Players = nil
	err = fresh.st.(storage.Dumper).Import(fresh.ctx, decode(d))
	wantErr(t, "Import of a guild with an audit log in the store", err, storage.ErrDuplicate)
	if !strings.Contains(err.Error(), "guilds[0]") {
		t.Fatalf("error %q does not name guilds[0]", err)
	}
	sameBytes(t, "a refused import changed the store", writeDump(t, fresh.st), before)
}
