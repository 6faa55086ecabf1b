package game

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var goodSettings = Settings{StartingBalance: 1000, DailyAmount: 100, DailyCooldown: 24 * time.Hour, House: DefaultHouse}

func TestSettingsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Settings)
		ok   bool
	}{
		{"good", func(*Settings) {}, true},
		{"zero", func(s *Settings) { *s = Settings{} }, true},
		{"max balance", func(s *Settings) { s.StartingBalance = MaxBalance }, true},
		{"negative start", func(s *Settings) { s.StartingBalance = -1 }, false},
		{"start past max", func(s *Settings) { s.StartingBalance = MaxBalance + 1 }, false},
		{"negative daily", func(s *Settings) { s.DailyAmount = -1 }, false},
		{"daily past max", func(s *Settings) { s.DailyAmount = MaxDailyAmount + 1 }, false},
		{"negative cooldown", func(s *Settings) { s.DailyCooldown = -time.Second }, false},
		{"cooldown past max", func(s *Settings) { s.DailyCooldown = MaxCooldown + time.Millisecond }, false},
		{"cooldown below a millisecond", func(s *Settings) { s.DailyCooldown = time.Hour + time.Microsecond }, false},
		{"house stake cap", func(s *Settings) { s.House.MaxStakeDay = MaxLimit + 1 }, false},
		{"house reminder too short", func(s *Settings) { s.House.RealityEvery = MinReminder - time.Second }, false},
		{"house reminder too long", func(s *Settings) { s.House.RealityEvery = MaxReminder + time.Second }, false},
		{"house reminder at the bounds", func(s *Settings) { s.House.RealityEvery = MaxReminder }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := goodSettings
			tc.edit(&s)
			err := s.Check()
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalid)) {
				t.Fatalf("Check(%+v) = %v, want ok %v (else ErrInvalid)", s, err, tc.ok)
			}
		})
	}
}

func TestCheckReminder(t *testing.T) {
	for d, ok := range map[time.Duration]bool{
		0: true, MinReminder: true, MaxReminder: true, MinReminder - 1: false, MaxReminder + 1: false, -time.Minute: false,
	} {
		if err := CheckReminder(d); ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("CheckReminder(%v) = %v, want ok %v", d, err, ok)
		}
		// The player's own reminder and the house's follow the same rule.
		_, perr := Apply(newTestPlayer(t, 100), SetLimits{Reminder: d}, t0)
		herr := House{RealityEvery: d}.Check()
		if (perr == nil) != ok && d >= 0 || (herr == nil) != ok {
			t.Errorf("reminder %v: SetLimits %v, House.Check %v, want ok %v", d, perr, herr, ok)
		}
	}
}

func TestAuditEntryCheck(t *testing.T) {
	good := AuditEntry{At: t0, Guild: 7, Actor: 1, Action: ActionGrant, Amount: 5, Reason: "ok"}
	for _, tc := range []struct {
		name  string
		edit  func(*AuditEntry)
		guild uint64 // OfGuild's argument
		ok    bool
	}{
		{"good", func(*AuditEntry) {}, 7, true},
		{"guild filled in", func(e *AuditEntry) { e.Guild = 0 }, 7, true},
		{"another guild", func(*AuditEntry) {}, 8, false},
		{"guild 0", func(e *AuditEntry) { e.Guild = 0 }, 0, false},
		{"no action", func(e *AuditEntry) { e.Action = "" }, 7, false},
		{"no time", func(e *AuditEntry) { e.At = time.Time{} }, 7, false},
		{"reason at the bound", func(e *AuditEntry) { e.Reason = strings.Repeat("é", MaxReason) }, 7, true},
		{"reason too long", func(e *AuditEntry) { e.Reason = strings.Repeat("é", MaxReason+1) }, 7, false},
		{"reason not UTF-8", func(e *AuditEntry) { e.Reason = "\xff" }, 7, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := good
			tc.edit(&e)
			got, err := e.OfGuild(tc.guild)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalid)) {
				t.Fatalf("OfGuild(%d) of %+v: %v, want ok %v", tc.guild, e, err, tc.ok)
			}
			if tc.ok && got.Guild != tc.guild {
				t.Fatalf("OfGuild(%d) gave guild %d", tc.guild, got.Guild)
			}
		})
	}
}

// cloneGuild deep-copies g, so that a test can see whether a transition
// touched what g's slices and pointers refer to.
func cloneGuild(g Guild) Guild {
	g.Ops = slices.Clone(g.Ops)
	if g.Reset != nil {
		r := *g.Reset
		g.Reset = &r
	}
	return g
}

// guildFunc is a transition written inline, as a GuildMove.
type guildFunc func(Guild) (GuildStep, error)

func (f guildFunc) applyGuild(g Guild, _ string, _ time.Time) (GuildStep, error) { return f(g) }

// guildStep runs ApplyGuild and checks what every guild step promises: the
// input never modified, an error or a repeat changing nothing, success
// giving a sound guild.
func guildStep(t *testing.T, g Guild, op string, f func(Guild) (GuildStep, error)) (GuildStep, bool, error) {
	t.Helper()
	before := cloneGuild(g)
	s, repeated, err := ApplyGuild(g, op, guildFunc(f), t0)
	if !reflect.DeepEqual(g, before) {
		t.Fatalf("the transition modified its input:\n%+v\n%+v", g, before)
	}
	if err != nil || repeated {
		if !reflect.DeepEqual(s, GuildStep{Guild: before}) {
			t.Fatalf("error %v / repeat %v with a change: %+v", err, repeated, s)
		}
		return s, repeated, err
	}
	if cerr := s.Guild.Check(); cerr != nil {
		t.Fatalf("step gave an unsound guild: %v", cerr)
	}
	return s, repeated, err
}

func TestChangeSettings(t *testing.T) {
	g := Guild{Settings: goodSettings}
	next := goodSettings
	next.DailyAmount, next.Channel = 250, 42
	set := func(s Settings, reason string) func(Guild) (GuildStep, error) { // every setting, as a patch
		p := SettingsPatch{&s.StartingBalance, &s.DailyAmount, &s.DailyCooldown, &s.PublicPlays, &s.Channel,
			&s.House.MaxStakeDay, &s.House.MinInterval, &s.House.RealityPlays, &s.House.RealityEvery}
		return func(g Guild) (GuildStep, error) { return ChangeSettings{p, 9, reason}.applyGuild(g, "", t0) }
	}
	s, repeated, err := guildStep(t, g, "op-1", set(next, "r"))
	if err != nil || repeated {
		t.Fatal(err, repeated)
	}
	want := AuditEntry{At: t0, Actor: 9, Action: ActionSettings, Reason: "daily amount 1.00 → 2.50; channel any → <#42> — r"}
	if s.Guild.Settings != next || !slices.Equal(s.Guild.Ops, []string{"op-1"}) || s.Audit == nil || *s.Audit != want || s.Pending {
		t.Fatalf("ChangeSettings: %+v, audit %+v", s, s.Audit)
	}
	first := s

	// A repeat, even with other settings, changes nothing: the guild as the
	// first step left it is the answer.
	other := next
	other.DailyAmount = 1
	s, repeated, err = guildStep(t, first.Guild, "op-1", set(other, "again"))
	if err != nil || !repeated || !s.Guild.Equal(first.Guild) || s.Audit != nil {
		t.Fatalf("repeat: %+v, %v, %v", s, repeated, err)
	}

	// The same settings: remembered, nothing logged.
	s, _, err = guildStep(t, first.Guild, "op-2", set(next, "no change"))
	if err != nil || s.Guild.Settings != next || s.Audit != nil || !slices.Equal(s.Guild.Ops, []string{"op-1", "op-2"}) {
		t.Fatalf("unchanged settings: %+v, %v", s, err)
	}

	for name, tc := range map[string]struct {
		op     string
		s      Settings
		reason string
	}{
		"bad settings":    {"op-3", Settings{DailyAmount: -5}, ""},
		"bad house":       {"op-3", Settings{House: House{MinInterval: 2 * MaxMinInterval}}, ""},
		"empty op":        {"", other, ""},
		"op too long":     {strings.Repeat("o", MaxOpID+1), other, ""},
		"op at the bound": {strings.Repeat("o", MaxOpID), other, ""},
	} {
		_, _, err := guildStep(t, first.Guild, tc.op, set(tc.s, tc.reason))
		if name == "op at the bound" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	// A reason too long for the log is cut to MaxReason.
	if s, _, err := guildStep(t, first.Guild, "op-3", set(other, strings.Repeat("x", MaxReason+1))); err != nil || len([]rune(s.Audit.Reason)) != MaxReason {
		t.Errorf("long reason: %+v, %v", s.Audit, err)
	}
	if _, _, err := ApplyGuild(g, "op", nil, t0); !errors.Is(err, ErrInvalid) {
		t.Errorf("no move: %v", err)
	}
	// An error of the transition is not remembered: a retry may succeed.
	mine := errors.New("mine")
	s, _, err = guildStep(t, g, "op-x", func(g Guild) (GuildStep, error) { return GuildStep{Guild: g}, mine })
	if !errors.Is(err, mine) || s.Guild.Has("op-x") {
		t.Fatalf("failed step: %+v, %v", s, err)
	}
}

func TestApplyGuildKeepsTheLastOps(t *testing.T) {
	g := Guild{Settings: goodSettings}
	var ops []string
	for i := range MaxGuildOps + 10 {
		op := fmt.Sprintf("op-%d", i)
		ops = append(ops, op)
		s, repeated, err := guildStep(t, g, op, func(g Guild) (GuildStep, error) {
			return ChangeSettings{Patch: SettingsPatch{StartingBalance: new(int64(i))}, Actor: 1}.applyGuild(g, "", t0)
		})
		if err != nil || repeated {
			t.Fatal(err, repeated)
		}
		if len(s.Guild.Ops) > MaxGuildOps {
			t.Fatalf("%d ops after %d steps", len(s.Guild.Ops), i+1)
		}
		g = s.Guild
	}
	if want := ops[len(ops)-MaxGuildOps:]; !slices.Equal(g.Ops, want) {
		t.Fatalf("ops %v…, want the last %d", g.Ops[:3], MaxGuildOps)
	}
	// The last one is a repeat; the oldest, forgotten, applies again.
	if _, repeated, _ := guildStep(t, g, ops[len(ops)-1], func(g Guild) (GuildStep, error) { return ChangeSettings{}.applyGuild(g, "", t0) }); !repeated {
		t.Fatal("the last op was not recognised")
	}
	if _, repeated, _ := guildStep(t, g, ops[0], func(g Guild) (GuildStep, error) { return ChangeSettings{}.applyGuild(g, "", t0) }); repeated {
		t.Fatal("an op older than MaxGuildOps was recognised")
	}
	// A guild remembering more than MaxGuildOps is not sound.
	g.Ops = append(g.Ops, "one too many")
	if err := g.Check(); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Check of %d ops: %v", len(g.Ops), err)
	}
}

func TestResetProgress(t *testing.T) {
	g := Guild{Settings: goodSettings}
	const op, me, ttl = "rg:1", "proc-a", 30 * time.Second
	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	start := func(op string, now time.Time) func(Guild) (GuildStep, error) {
		return func(g Guild) (GuildStep, error) { return BeginReset{Actor: 9, Reason: "spring"}.applyGuild(g, op, now) }
	}
	lease := func(op, holder string, now time.Time) func(Guild) (GuildStep, error) {
		return func(g Guild) (GuildStep, error) { return Lease{Holder: holder, TTL: ttl}.applyGuild(g, op, now) }
	}
	progress := func(op string, after uint64, n int64) func(Guild) (GuildStep, error) {
		return func(g Guild) (GuildStep, error) {
			return Progress{Holder: me, After: after, Count: n, TTL: ttl}.applyGuild(g, op, t1)
		}
	}
	finish := func(op string, now time.Time) func(Guild) (GuildStep, error) {
		return func(g Guild) (GuildStep, error) { return EndReset{Holder: me}.applyGuild(g, op, now) }
	}
	must := func(g Guild, op string, f func(Guild) (GuildStep, error)) GuildStep {
		t.Helper()
		s, repeated, err := guildStep(t, g, op, f)
		if err != nil || repeated {
			t.Fatal(err, repeated)
		}
		return s
	}

	s := must(g, op, start(op, t0))
	if want := (GuildReset{Op: op, Actor: 9, Reason: "spring", Started: t0}); s.Guild.Reset == nil || *s.Guild.Reset != want || !s.Pending || s.Audit != nil || s.Guild.Has(op) {
		t.Fatalf("start: %+v (%+v)", s, s.Guild.Reset)
	}
	// Started again (the confirmation pressed again): it goes on.
	if again := must(s.Guild, op, start(op, t1)); !again.Guild.Equal(s.Guild) || !again.Pending {
		t.Fatalf("started twice: %+v", again)
	}
	// No one holds the lease yet: progress is refused.
	if _, _, err := guildStep(t, s.Guild, op, progress(op, 500, 3)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("progress without the lease: %v", err)
	}
	s = must(s.Guild, op, lease(op, me, t0))
	if r := s.Guild.Reset; r.Holder != me || !r.Until.Equal(t0.Add(ttl)) || !s.Pending {
		t.Fatalf("lease: %+v", r)
	}
	s = must(s.Guild, op, progress(op, 500, 3))
	if r := s.Guild.Reset; r.After != 500 || r.Count != 3 || !s.Pending || !r.Until.Equal(t1.Add(ttl)) {
		t.Fatalf("progress: %+v", r)
	}
	// A progress recorded twice (a retry) or late counts once.
	for _, after := range []uint64{500, 499} {
		if again := must(s.Guild, op, progress(op, after, 3)); again.Guild.Reset.Count != 3 || again.Guild.Reset.After != 500 {
			t.Fatalf("progress to %d recorded again: %+v", after, again.Guild.Reset)
		}
	}
	s = must(s.Guild, op, progress(op, 900, 2))
	for name, f := range map[string]func(Guild) (GuildStep, error){
		"progress of another reset": progress("rg:other", 1000, 1),
		"end of another reset":      finish("rg:other", t2),
		"lease of another reset":    lease("rg:other", me, t2),
	} {
		if _, _, err := guildStep(t, s.Guild, op, f); !errors.Is(err, ErrNoReset) {
			t.Errorf("%s: %v, want ErrNoReset", name, err)
		}
	}
	for name, f := range map[string]func(Guild) (GuildStep, error){
		"negative count": progress(op, 1000, -1),
		"empty holder":   lease(op, "", t1),
		"long holder":    lease(op, strings.Repeat("h", MaxOpID+1), t1),
		"no ttl":         func(g Guild) (GuildStep, error) { return Lease{Holder: me}.applyGuild(g, op, t1) },
	} {
		if _, _, err := guildStep(t, s.Guild, op, f); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}

	done := must(s.Guild, op, finish(op, t2))
	want := AuditEntry{At: t2, Actor: 9, Action: ActionResetGuild, Amount: 5, Reason: "spring"}
	if r := done.Guild.Reset; !r.Finished() || r.Count != 5 || done.Pending || done.Audit == nil || *done.Audit != want || !done.Guild.Has(op) || r.Holder != "" {
		t.Fatalf("finish: %+v, reset %+v, audit %+v", done, r, done.Audit)
	}
	// Once finished, every step of the operation is a repeat: the count
	// stays the first one.
	for name, f := range map[string]func(Guild) (GuildStep, error){
		"start": start(op, t2), "progress": progress(op, 2000, 4), "finish": finish(op, t2), "lease": lease(op, "proc-b", t2),
	} {
		if s, repeated, err := guildStep(t, done.Guild, op, f); err != nil || !repeated || s.Guild.Reset.Count != 5 {
			t.Errorf("%s after the end: %+v, %v, %v", name, s.Guild.Reset, repeated, err)
		}
	}

	// A new reset while one is in progress changes nothing: the running
	// one shows, and it is never replaced.
	half := must(done.Guild, "rg:2", start("rg:2", t2))
	half = must(half.Guild, "rg:2", lease("rg:2", me, t2))
	half = must(half.Guild, "rg:2", progress("rg:2", 10, 4))
	other, _, err := guildStep(t, half.Guild, "rg:3", start("rg:3", t2.Add(time.Hour)))
	if !errors.Is(err, ErrResetRunning) || !other.Guild.Equal(half.Guild) || other.Audit != nil {
		t.Fatalf("a second reset while one runs: %v, %+v", err, other.Guild.Reset)
	}
	// A finished reset is not logged again when the next one starts.
	if next := must(done.Guild, "rg:4", start("rg:4", t2)); next.Audit != nil {
		t.Fatalf("starting after a finished reset logged %+v", next.Audit)
	}
}

// TestResetLease: the lease is taken if free or expired, renewed only by
// its holder, refused otherwise; the holder alone records progress and
// the end.
func TestResetLease(t *testing.T) {
	const op, ttl = "rg:1", 30 * time.Second
	g := Guild{Settings: goodSettings, Reset: &GuildReset{Op: op, Started: t0}}
	take := func(g Guild, holder string, now time.Time) (GuildStep, error) {
		s, _, err := guildStep(t, g, op, func(g Guild) (GuildStep, error) { return Lease{Holder: holder, TTL: ttl}.applyGuild(g, op, now) })
		return s, err
	}
	a, err := take(g, "a", t0)
	if err != nil || a.Guild.Reset.Holder != "a" {
		t.Fatalf("a free lease: %+v, %v", a.Guild.Reset, err)
	}
	for _, tc := range []struct {
		name   string
		holder string
		at     time.Time
		want   error
		owner  string
	}{
		{"another, while held", "b", t0.Add(ttl - time.Millisecond), ErrLeaseHeld, "a"},
		{"the holder renews", "a", t0.Add(ttl - time.Millisecond), nil, "a"},
		{"the holder renews late", "a", t0.Add(time.Hour), nil, "a"},
		{"another, once expired", "b", t0.Add(ttl), nil, "b"},
	} {
		s, err := take(a.Guild, tc.holder, tc.at)
		if !errors.Is(err, tc.want) || s.Guild.Reset.Holder != tc.owner {
			t.Errorf("%s: %v, held by %q, want %v and %q", tc.name, err, s.Guild.Reset.Holder, tc.want, tc.owner)
		}
		if err == nil && !s.Guild.Reset.Until.Equal(tc.at.Add(ttl)) {
			t.Errorf("%s: until %v", tc.name, s.Guild.Reset.Until)
		}
		if a.Guild.Reset.Running(tc.holder, tc.at) != (tc.want != nil) {
			t.Errorf("%s: Running says %v", tc.name, !(tc.want != nil))
		}
	}
	b, err := take(a.Guild, "b", t0.Add(ttl))
	if err != nil {
		t.Fatal(err)
	}
	// The old holder, back after losing the lease, records nothing.
	for name, f := range map[string]func(Guild) (GuildStep, error){
		"progress": func(g Guild) (GuildStep, error) {
			return Progress{Holder: "a", After: 50, Count: 1, TTL: ttl}.applyGuild(g, op, t0.Add(ttl))
		},
		"finish": func(g Guild) (GuildStep, error) { return EndReset{Holder: "a"}.applyGuild(g, op, t0.Add(ttl)) },
	} {
		if s, _, err := guildStep(t, b.Guild, op, f); !errors.Is(err, ErrLeaseHeld) || !s.Guild.Equal(b.Guild) {
			t.Errorf("%s by the old holder: %v", name, err)
		}
	}
	if bad := (Guild{Reset: &GuildReset{Op: op, Started: t0, Holder: "a"}}); bad.Check() == nil {
		t.Error("a lease without an end passes Check")
	}
}

func TestGuildCheck(t *testing.T) {
	r := GuildReset{Op: "rg", Started: t0}
	for _, tc := range []struct {
		name string
		g    Guild
		ok   bool
	}{
		{"zero", Guild{}, true},
		{"reset", Guild{Reset: &r}, true},
		{"empty op", Guild{Ops: []string{""}}, false},
		{"long op", Guild{Ops: []string{strings.Repeat("x", MaxOpID+1)}}, false},
		{"bad settings", Guild{Settings: Settings{StartingBalance: -1}}, false},
		{"reset without op", Guild{Reset: &GuildReset{Started: t0}}, false},
		{"reset without start", Guild{Reset: &GuildReset{Op: "rg"}}, false},
		{"negative count", Guild{Reset: &GuildReset{Op: "rg", Started: t0, Count: -1}}, false},
	} {
		if err := tc.g.Check(); tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestBalanceFull: BalanceFull is exactly the balances Buy refuses to sell
// a ticket to, whose prizes could not be credited.
func TestBalanceFull(t *testing.T) {
	edge := MaxBalance - playHeadroom() + Stake
	for _, b := range []int64{0, Stake, MaxBalance / 2, edge - Stake, edge - 1, edge, edge + 1, edge + Stake, MaxBalance} {
		p := newTestPlayer(t, b)
		_, err := Apply(p, Buy{}, t0)
		refused := errors.Is(err, ErrInvalid)
		if refused != BalanceFull(b) {
			t.Errorf("balance %d: Buy %v, BalanceFull %v", b, err, BalanceFull(b))
		}
		// Refused exactly when, the stake debited, the richest ticket (the
		// gem and, its key opening the chest, three gold coins) could not
		// be credited.
		if most := TierGem.Prize() + LotThreeGold.Prize(); b >= Stake && BalanceFull(b) == CanCredit(b-Stake, most) {
			t.Errorf("balance %d: BalanceFull %v, yet crediting %d after the stake: %v", b, BalanceFull(b), most, CanCredit(b-Stake, most))
		}
		if !refused && b >= Stake && err != nil {
			t.Errorf("balance %d: Buy %v", b, err)
		}
	}
	if !CanCredit(MaxBalance-1, 1) || CanCredit(MaxBalance, 1) || CanCredit(0, -1) || !CanCredit(5, -5) {
		t.Error("CanCredit does not follow 0..MaxBalance")
	}
}

// TestDailyReady: DailyReady and CooldownError.Next are ClaimDaily's rule of time.
func TestDailyReady(t *testing.T) {
	p := newTestPlayer(t, 0)
	if !p.DailyReady(time.Hour, t0) {
		t.Fatal("a first claim is not ready")
	}
	s, err := ClaimDaily{100, time.Hour}.apply(p, t0)
	if err != nil {
		t.Fatal(err)
	}
	p = s.Player
	for _, d := range []time.Duration{0, time.Minute, time.Hour - time.Nanosecond, time.Hour, 2 * time.Hour} {
		now := t0.Add(d)
		_, err := ClaimDaily{100, time.Hour}.apply(p, now)
		var ce *CooldownError
		if ready := p.DailyReady(time.Hour, now); ready != (err == nil) || (!ready && (!errors.As(err, &ce) || !ce.Next.Equal(t0.Add(time.Hour)))) {
			t.Errorf("at +%v: DailyReady %v, ClaimDaily %v", d, ready, err)
		}
	}
}

func TestKinds(t *testing.T) {
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		if !k.Valid() || seen[k] {
			t.Errorf("kind %q: valid %v, seen %v", k, k.Valid(), seen[k])
		}
		seen[k] = true
	}
	if len(seen) != 8 || Kind("").Valid() || Kind("jackpot").Valid() {
		t.Errorf("kinds %v", Kinds())
	}
}
