package game

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// t0 (player_test.go) is Saturday 2025-03-01 12:00 UTC: its day ends at
// 2025-03-02 00:00 UTC, its week (from Monday 2025-02-24) at 2025-03-03.
var (
	nextMidnight = time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC)
	nextMonday   = time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
)

// withLimits returns a player of 10 000 cents with the limits set at t0.
func withLimits(t *testing.T, sets ...LimitSet) Player {
	t.Helper()
	s := stepOK(t, newTestPlayer(t, 10_000), SetLimits{Sets: sets, Reminder: -1}, t0)
	return s.Player
}

// playAt buys a ticket at now under h and draws it with outcome o, and
// returns the player after it and the Buy's result.
func playAt(t *testing.T, p Player, h House, o Outcome, now time.Time) (Player, Result) {
	t.Helper()
	b, err := step(t, p, Buy{House: h}, now)
	if err != nil {
		t.Fatalf("Buy at %v: %v", now, err)
	}
	r, err := step(t, b.Player, Reveal{Ticket: b.Result.Ticket, Rows: AllRows, Drawer: &fixedDrawer{o: o}}, now)
	if err != nil {
		t.Fatalf("Reveal at %v: %v", now, err)
	}
	return r.Player, b.Result
}

// refusedBuy checks that Buy at now is refused with a *LimitError and
// returns it.
func refusedBuy(t *testing.T, p Player, h House, now time.Time) *LimitError {
	t.Helper()
	_, err := step(t, p, Buy{House: h}, now)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimitReached) {
		t.Fatalf("Buy at %v = %v, want a *LimitError", now, err)
	}
	return le
}

func TestDayAndWeekStart(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		at         time.Time
		day, week  time.Time
		atWeekName string
	}{
		{t0, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 2, 24, 0, 0, 0, 0, time.UTC), "Saturday"},
		{nextMonday.Add(-time.Nanosecond), time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2025, 2, 24, 0, 0, 0, 0, time.UTC), "Sunday's last instant"},
		{nextMonday, nextMonday, nextMonday, "Monday 00:00"},
		// Monday 00:30 in Paris is still Sunday in UTC: the week is UTC's.
		{time.Date(2025, 3, 3, 0, 30, 0, 0, paris), time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2025, 2, 24, 0, 0, 0, 0, time.UTC), "Monday in Paris"},
		{time.Date(2025, 3, 9, 23, 0, 0, 0, time.UTC), time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC), nextMonday, "next Sunday"},
	} {
		if got := DayStart(tc.at); !got.Equal(tc.day) || got.Location() != time.UTC {
			t.Errorf("%s: DayStart(%v) = %v, want %v", tc.atWeekName, tc.at, got, tc.day)
		}
		if got := WeekStart(tc.at); !got.Equal(tc.week) || got.Weekday() != time.Monday {
			t.Errorf("%s: WeekStart(%v) = %v, want %v", tc.atWeekName, tc.at, got, tc.week)
		}
	}
}

func TestStakeDayLimit(t *testing.T) {
	loss := mustOutcome(t, TierLoss, false)
	p := withLimits(t, LimitSet{LimitStakeDay, 2 * Stake})
	if l := p.Care.Limits[LimitStakeDay]; l != (Limit{Amount: 2 * Stake}) {
		t.Fatalf("a first limit waits: %+v", l)
	}
	p, _ = playAt(t, p, House{}, loss, t0)
	p, _ = playAt(t, p, House{}, loss, t0.Add(time.Minute))
	le := refusedBuy(t, p, House{}, t0.Add(2*time.Minute))
	if want := (LimitError{Kind: LimitStakeDay, Limit: 2 * Stake, Used: 2 * Stake, Reset: nextMidnight}); *le != want {
		t.Fatalf("limit error %+v, want %+v", *le, want)
	}
	// The last instant of the day is still the day.
	refusedBuy(t, p, House{}, nextMidnight.Add(-time.Nanosecond))
	// The next UTC day counts again from zero.
	b, err := step(t, p, Buy{}, nextMidnight)
	if err != nil {
		t.Fatalf("Buy the next day: %v", err)
	}
	if s := b.Player.Care.Spend; s.StakedDay != Stake || !s.Day.Equal(nextMidnight) || s.StakedWeek != 3*Stake {
		t.Fatalf("spend the next day %+v", s)
	}
}

func TestStakeWeekLimit(t *testing.T) {
	loss := mustOutcome(t, TierLoss, false)
	p := withLimits(t, LimitSet{LimitStakeWeek, 2 * Stake})
	p, _ = playAt(t, p, House{}, loss, t0)                  // Saturday
	p, _ = playAt(t, p, House{}, loss, nextMidnight.Add(1)) // Sunday
	le := refusedBuy(t, p, House{}, nextMonday.Add(-time.Second))
	if le.Kind != LimitStakeWeek || le.Used != 2*Stake || !le.Reset.Equal(nextMonday) {
		t.Fatalf("limit error %+v", *le)
	}
	if _, err := step(t, p, Buy{}, nextMonday); err != nil {
		t.Fatalf("Buy on Monday 00:00: %v", err)
	}
}

// TestLossDayCountsPrizes: a win lowers the loss a loss limit counts.
func TestLossDayCountsPrizes(t *testing.T) {
	loss, candle := mustOutcome(t, TierLoss, false), mustOutcome(t, TierCandle, false)
	plays := func(script ...Outcome) (int, *LimitError) {
		t.Helper()
		p := withLimits(t, LimitSet{LimitLossDay, 2 * Stake})
		for i := 0; ; i++ {
			now := t0.Add(time.Duration(i) * time.Minute)
			if _, err := Apply(p, Buy{}, now); err != nil {
				var le *LimitError
				if !errors.As(err, &le) {
					t.Fatalf("play %d: %v", i+1, err)
				}
				return i, le
			}
			o := loss
			if i < len(script) {
				o = script[i]
			}
			p, _ = playAt(t, p, House{}, o, now)
		}
	}
	if n, le := plays(); n != 2 || le.Kind != LimitLossDay || le.Used != 2*Stake {
		t.Fatalf("losses only: %d plays, then %+v; want 2", n, le)
	}
	// loss (−50), candle (+50: net 0), loss, loss: 100 lost after 4.
	if n, le := plays(loss, candle); n != 4 || le.Used != 2*Stake || !le.Reset.Equal(nextMidnight) {
		t.Fatalf("with a win: %d plays, then %+v; want 4", n, le)
	}
	// A stake limit does not count prizes.
	p := withLimits(t, LimitSet{LimitStakeDay, 2 * Stake})
	p, _ = playAt(t, p, House{}, candle, t0)
	p, _ = playAt(t, p, House{}, candle, t0)
	refusedBuy(t, p, House{}, t0)
}

func TestLimitChanges(t *testing.T) {
	base := withLimits(t, LimitSet{LimitStakeDay, 100})
	set := func(t *testing.T, p Player, amount int64, now time.Time) Player {
		t.Helper()
		s, err := step(t, p, SetLimits{Sets: []LimitSet{{LimitStakeDay, amount}}, Reminder: -1}, now)
		if err != nil {
			t.Fatal(err)
		}
		if s.History != nil {
			t.Fatalf("SetLimits wrote history %+v", s.History)
		}
		return s.Player
	}
	at := func(p Player, now time.Time) Limit { return p.LimitsAt(now)[LimitStakeDay] }

	t.Run("raise waits 24 h", func(t *testing.T) {
		p := set(t, base, 300, t0)
		if l := at(p, t0.Add(RaiseDelay-time.Nanosecond)); l != (Limit{Amount: 100, Next: 300, At: t0.Add(RaiseDelay)}) {
			t.Fatalf("before the delay: %+v", l)
		}
		if l := at(p, t0.Add(RaiseDelay)); l != (Limit{Amount: 300}) {
			t.Fatalf("after the delay: %+v", l)
		}
	})
	t.Run("a second raise never shortens the delay", func(t *testing.T) {
		p := set(t, base, 300, t0)
		p = set(t, p, 500, t0.Add(time.Hour))
		if l := at(p, t0.Add(RaiseDelay)); l.Amount != 100 || l.Next != 500 {
			t.Fatalf("at t+24h: %+v, want 100 in force", l)
		}
		if l := at(p, t0.Add(RaiseDelay+time.Hour)); l != (Limit{Amount: 500}) {
			t.Fatalf("at t+25h: %+v", l)
		}
		// Nor does asking again for the amount already waiting.
		p = set(t, set(t, base, 300, t0), 300, t0.Add(time.Hour))
		if l := at(p, t0.Add(RaiseDelay)); l.Amount != 100 {
			t.Fatalf("the same raise asked again: %+v at t+24h", l)
		}
	})
	t.Run("lowering applies at once and drops a waiting raise", func(t *testing.T) {
		p := set(t, set(t, base, 300, t0), 50, t0.Add(time.Hour))
		if l := at(p, t0.Add(time.Hour)); l != (Limit{Amount: 50}) {
			t.Fatalf("after lowering: %+v", l)
		}
		if l := at(p, t0.Add(48*time.Hour)); l != (Limit{Amount: 50}) {
			t.Fatalf("the dropped raise came back: %+v", l)
		}
		// Asking for the amount in force keeps it and drops the raise.
		p = set(t, set(t, base, 300, t0), 100, t0.Add(time.Hour))
		if l := at(p, t0.Add(48*time.Hour)); l != (Limit{Amount: 100}) {
			t.Fatalf("the same amount: %+v", l)
		}
	})
	t.Run("removal waits", func(t *testing.T) {
		p := set(t, base, 0, t0)
		if l := at(p, t0.Add(time.Hour)); l != (Limit{Amount: 100, Next: 0, At: t0.Add(RaiseDelay)}) || !l.Pending() {
			t.Fatalf("removal at once: %+v", l)
		}
		if l := at(p, t0.Add(RaiseDelay)); l != (Limit{}) {
			t.Fatalf("removal after 24 h: %+v", l)
		}
	})
	t.Run("Buy counts the limit in force, not the waiting one", func(t *testing.T) {
		loss := mustOutcome(t, TierLoss, false)
		p := withLimits(t, LimitSet{LimitStakeDay, Stake})
		p = set(t, p, 0, t0) // removal: in force at 2025-03-02 12:00
		p, _ = playAt(t, p, House{}, loss, t0)
		refusedBuy(t, p, House{}, t0.Add(time.Hour))
		p, _ = playAt(t, p, House{}, loss, nextMidnight) // a new day: one more
		refusedBuy(t, p, House{}, t0.Add(RaiseDelay-time.Second))
		if _, err := step(t, p, Buy{}, t0.Add(RaiseDelay)); err != nil {
			t.Fatalf("Buy once the removal is in force: %v", err)
		}
	})
}

func TestSetLimitsReminder(t *testing.T) {
	p := newTestPlayer(t, 1000)
	for _, r := range []time.Duration{MinReminder, MaxReminder, 0} {
		s, err := step(t, p, SetLimits{Reminder: r}, t0)
		if err != nil || s.Player.Care.Reminder != r {
			t.Fatalf("reminder %v: %+v, %v", r, s.Player.Care, err)
		}
		p = s.Player
	}
	p.Care.Reminder = 10 * time.Minute
	s, err := step(t, p, SetLimits{Sets: []LimitSet{{LimitLossWeek, 5}}, Reminder: -1}, t0)
	if err != nil || s.Player.Care.Reminder != 10*time.Minute {
		t.Fatalf("a negative reminder changed it: %+v, %v", s.Player.Care, err)
	}
}

func TestCareBadInput(t *testing.T) {
	p := withLimits(t, LimitSet{LimitStakeDay, 100})
	ok := LimitSet{LimitStakeWeek, 500}
	for _, tc := range []struct {
		name     string
		sets     []LimitSet
		reminder time.Duration
	}{
		{"negative", []LimitSet{{LimitStakeDay, -1}}, -1},
		{"too large", []LimitSet{{LimitLossDay, MaxLimit + 1}}, -1},
		{"unknown kind", []LimitSet{{NumLimits, 100}}, -1},
		{"negative kind", []LimitSet{{-1, 100}}, -1},
		{"a kind twice", []LimitSet{{LimitLossDay, 100}, {LimitLossDay, 200}}, -1},
		{"a good one, then a bad one", []LimitSet{ok, {LimitLossWeek, -5}}, -1},
		{"reminder too short", []LimitSet{ok}, MinReminder - time.Second},
		{"reminder too long", nil, MaxReminder + time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := step(t, p, SetLimits{Sets: tc.sets, Reminder: tc.reminder}, t0)
			wantErr(t, err, ErrInvalid)
		})
	}
	if _, err := step(t, p, SetLimits{Sets: []LimitSet{{LimitLossDay, MaxLimit}}, Reminder: -1}, t0); err != nil {
		t.Fatalf("MaxLimit refused: %v", err)
	}
	for _, d := range []time.Duration{MinPause - time.Second, MaxPause + time.Second, -time.Hour, 0} {
		_, err := step(t, p, Pause{Until: t0.Add(d)}, t0)
		wantErr(t, err, ErrInvalid)
	}
	for _, d := range []time.Duration{MinPause, MaxPause} {
		if _, err := step(t, p, Pause{Until: t0.Add(d)}, t0); err != nil {
			t.Fatalf("a pause of %v refused: %v", d, err)
		}
	}
	for _, h := range []House{
		{MaxStakeDay: -1}, {MaxStakeDay: MaxLimit + 1},
		{MinInterval: -time.Second}, {MinInterval: MaxMinInterval + time.Second},
		{RealityPlays: -1}, {RealityPlays: MaxRealityPlay + 1},
		{RealityEvery: MinReminder - time.Second}, {RealityEvery: MaxReminder + time.Second},
	} {
		if err := h.Check(); !errors.Is(err, ErrInvalid) {
			t.Errorf("House %+v: Check = %v", h, err)
		}
		_, err := step(t, p, Buy{House: h}, t0)
		wantErr(t, err, ErrInvalid)
	}
	for _, h := range []House{{}, DefaultHouse, {MaxStakeDay: MaxLimit, MinInterval: MaxMinInterval, RealityPlays: MaxRealityPlay, RealityEvery: MaxReminder}} {
		if err := h.Check(); err != nil {
			t.Errorf("House %+v: %v", h, err)
		}
	}
}

func TestPause(t *testing.T) {
	p := newTestPlayer(t, 1000)
	until := t0.Add(24 * time.Hour)
	s := stepOK(t, p, Pause{Until: until}, t0)
	if !reflect.DeepEqual(s.History, []Entry{{At: t0, Kind: KindPause, Balance: 1000, Placed: true}}) || !s.Player.Care.PausedUntil.Equal(until) {
		t.Fatalf("Pause = %+v", s)
	}
	paused := s.Player
	if !paused.Paused(until.Add(-time.Nanosecond)) || paused.Paused(until) {
		t.Fatal("Paused is wrong at the pause's end")
	}
	for _, f := range []struct {
		name string
		m    Move
	}{
		{"Buy", Buy{}},
		{"ClaimDaily", ClaimDaily{100, time.Hour}},
	} {
		_, err := step(t, paused, f.m, t0.Add(time.Hour))
		var pe *PausedError
		if !errors.As(err, &pe) || !errors.Is(err, ErrPaused) || !pe.Until.Equal(until) {
			t.Errorf("%s while paused: %v", f.name, err)
		}
	}
	if _, err := step(t, paused, Buy{}, until); err != nil {
		t.Fatalf("Buy at the pause's end: %v", err)
	}

	t.Run("what was paid for still goes on", func(t *testing.T) {
		open := bought(t, 0)
		ps := stepOK(t, open, Pause{Until: until}, t0)
		if _, err := step(t, ps.Player, Reveal{Ticket: 1, Rows: AllRows, Drawer: &fixedDrawer{o: mustOutcome(t, TierLoss, false)}}, t0.Add(time.Minute)); err != nil {
			t.Fatalf("Reveal of an open ticket while paused: %v", err)
		}
		due := chestDue(t)
		ps = stepOK(t, due, Pause{Until: until}, t0)
		if _, err := step(t, ps.Player, OpenChest{Seq: 1, Drawer: &fixedDrawer{c: Chest{Lot: LotSilver, Prize: LotSilver.Prize()}}}, t0.Add(time.Minute)); err != nil {
			t.Fatalf("OpenChest of a due chest while paused: %v", err)
		}
	})
	t.Run("never shortened", func(t *testing.T) {
		long := t0.Add(7 * 24 * time.Hour)
		s := stepOK(t, p, Pause{Until: long}, t0)
		s, err := step(t, s.Player, Pause{Until: t0.Add(2 * time.Hour)}, t0.Add(time.Hour))
		if err != nil || !s.Player.Care.PausedUntil.Equal(long) {
			t.Fatalf("a shorter pause: until %v, %v; want %v", s.Player.Care.PausedUntil, err, long)
		}
		s, err = step(t, s.Player, Pause{Until: long.Add(time.Hour)}, t0.Add(time.Hour))
		if err != nil || !s.Player.Care.PausedUntil.Equal(long.Add(time.Hour)) {
			t.Fatalf("a longer pause: until %v, %v", s.Player.Care.PausedUntil, err)
		}
	})
	t.Run("LiftPause", func(t *testing.T) {
		lift := t0.Add(2 * time.Hour)
		s := stepOK(t, paused, LiftPause{}, lift)
		if s.Player.Paused(lift) || !reflect.DeepEqual(s.History, []Entry{{At: lift, Kind: KindLift, Balance: 1000, Placed: true}}) {
			t.Fatalf("LiftPause = %+v", s)
		}
		if _, err := step(t, s.Player, Buy{}, lift); err != nil {
			t.Fatalf("Buy after LiftPause: %v", err)
		}
		_, err := step(t, s.Player, LiftPause{}, lift)
		wantErr(t, err, ErrNotPaused)
		_, err = step(t, p, LiftPause{}, t0)
		wantErr(t, err, ErrNotPaused)
		_, err = step(t, paused, LiftPause{}, until) // ended already
		wantErr(t, err, ErrNotPaused)
	})
}

func TestHouseRules(t *testing.T) {
	loss := mustOutcome(t, TierLoss, false)
	t.Run("MaxStakeDay", func(t *testing.T) {
		h := House{MaxStakeDay: 2 * Stake}
		p, _ := playAt(t, newTestPlayer(t, 1000), h, loss, t0)
		p, _ = playAt(t, p, h, loss, t0)
		le := refusedBuy(t, p, h, t0)
		if want := (LimitError{Kind: LimitStakeDay, House: true, Limit: 2 * Stake, Used: 2 * Stake, Reset: nextMidnight}); *le != want {
			t.Fatalf("house limit %+v, want %+v", *le, want)
		}
		// The player's own, stricter, limit speaks first.
		q := withLimits(t, LimitSet{LimitStakeDay, Stake})
		q, _ = playAt(t, q, h, loss, t0)
		if le := refusedBuy(t, q, h, t0); le.House || le.Limit != Stake {
			t.Fatalf("own stricter limit: %+v", *le)
		}
		if _, err := step(t, p, Buy{House: h}, nextMidnight); err != nil {
			t.Fatalf("the next day: %v", err)
		}
	})
	t.Run("MinInterval", func(t *testing.T) {
		h := House{MinInterval: 10 * time.Second}
		p, _ := playAt(t, newTestPlayer(t, 1000), h, loss, t0)
		_, err := step(t, p, Buy{House: h}, t0.Add(10*time.Second-time.Nanosecond))
		var ts *TooSoonError
		if !errors.As(err, &ts) || !errors.Is(err, ErrTooSoon) || !ts.Next.Equal(t0.Add(10*time.Second)) {
			t.Fatalf("too soon: %v", err)
		}
		if _, err := step(t, p, Buy{House: h}, t0.Add(10*time.Second)); err != nil {
			t.Fatalf("at the interval: %v", err)
		}
		// The first ticket ever is never too soon.
		if _, err := step(t, newTestPlayer(t, 1000), Buy{House: h}, t0); err != nil {
			t.Fatal(err)
		}
	})
}

// realities plays a ticket at each offset from t0 under h, with the
// outcomes of script (losses after), and returns the reality check each
// Buy gave.
func realities(t *testing.T, p Player, h House, offsets []time.Duration, script ...Outcome) []*Reality {
	t.Helper()
	var out []*Reality
	for i, d := range offsets {
		o := mustOutcome(t, TierLoss, false)
		if i < len(script) {
			o = script[i]
		}
		var r Result
		p, r = playAt(t, p, h, o, t0.Add(d))
		out = append(out, r.Reality)
	}
	return out
}

func minutes(ms ...int) []time.Duration {
	var ds []time.Duration
	for _, m := range ms {
		ds = append(ds, time.Duration(m)*time.Minute)
	}
	return ds
}

// checkedAt returns the indexes of the plays that showed a reality check.
func checkedAt(rs []*Reality) []int {
	var is []int
	for i, r := range rs {
		if r != nil {
			is = append(is, i)
		}
	}
	return is
}

func TestRealityChecks(t *testing.T) {
	fresh := newTestPlayer(t, 10_000)
	candle := mustOutcome(t, TierCandle, false)
	loss := mustOutcome(t, TierLoss, false)
	t.Run("after RealityPlays plays", func(t *testing.T) {
		rs := realities(t, fresh, House{RealityPlays: 3}, minutes(0, 1, 2, 3, 4, 5, 6, 7), loss, candle, loss)
		if got := checkedAt(rs); !reflect.DeepEqual(got, []int{3, 6}) {
			t.Fatalf("checks on plays %v, want [3 6]", got)
		}
		// The 4th card: 3 plays over 3 minutes, −50 +50 −50.
		if *rs[3] != (Reality{Played: 3 * time.Minute, Plays: 3, Net: -Stake}) {
			t.Fatalf("first check %+v", *rs[3])
		}
		if rs[6].Plays != 6 || rs[6].Played != 6*time.Minute || rs[6].Net != -4*Stake {
			t.Fatalf("second check %+v", *rs[6])
		}
	})
	t.Run("after RealityEvery", func(t *testing.T) {
		rs := realities(t, fresh, House{RealityEvery: 10 * time.Minute}, minutes(0, 3, 6, 9, 12, 15, 18, 21, 24))
		if got := checkedAt(rs); !reflect.DeepEqual(got, []int{4, 8}) {
			t.Fatalf("checks on plays %v, want [4 8]", got)
		}
		if *rs[4] != (Reality{Played: 12 * time.Minute, Plays: 4, Net: -4 * Stake}) {
			t.Fatalf("check %+v", *rs[4])
		}
	})
	t.Run("a player's own reminder wins", func(t *testing.T) {
		s := stepOK(t, fresh, SetLimits{Reminder: 5 * time.Minute}, t0)
		rs := realities(t, s.Player, House{RealityEvery: time.Hour}, minutes(0, 3, 6, 9, 12))
		if got := checkedAt(rs); !reflect.DeepEqual(got, []int{2, 4}) {
			t.Fatalf("checks on plays %v, want [2 4]", got)
		}
	})
	t.Run("a gap starts a new session", func(t *testing.T) {
		gap := int(SessionGap / time.Minute)
		rs := realities(t, fresh, House{RealityPlays: 2}, minutes(0, 1, 1+gap, 2+gap, 3+gap), candle)
		if got := checkedAt(rs); !reflect.DeepEqual(got, []int{4}) {
			t.Fatalf("checks on plays %v, want [4]", got)
		}
		// The new session counts from its own start, without the win before.
		if *rs[4] != (Reality{Played: 2 * time.Minute, Plays: 2, Net: -2 * Stake}) {
			t.Fatalf("check %+v", *rs[4])
		}
		// Just under the gap is the same session.
		rs = realities(t, fresh, House{RealityPlays: 2}, []time.Duration{0, time.Minute, time.Minute + SessionGap - time.Second})
		if got := checkedAt(rs); !reflect.DeepEqual(got, []int{2}) {
			t.Fatalf("under the gap: checks on plays %v, want [2]", got)
		}
	})
	t.Run("none by default House{}", func(t *testing.T) {
		rs := realities(t, fresh, House{}, minutes(0, 20, 40, 60, 80, 100))
		if got := checkedAt(rs); got != nil {
			t.Fatalf("checks on plays %v with no rule", got)
		}
	})
}

func TestResetKeepsCare(t *testing.T) {
	p := withLimits(t, LimitSet{LimitStakeDay, 100}, LimitSet{LimitLossWeek, 300})
	p, _ = playAt(t, p, House{}, mustOutcome(t, TierLoss, false), t0)
	s := stepOK(t, p, SetLimits{Sets: []LimitSet{{LimitStakeDay, 500}}, Reminder: 10 * time.Minute}, t0)
	s = stepOK(t, s.Player, Pause{Until: t0.Add(48 * time.Hour)}, t0)
	before := s.Player.Care
	r := stepOK(t, s.Player, Reset{Start: 2000}, t0.Add(time.Hour))
	if !reflect.DeepEqual(r.Player.Care, before) {
		t.Fatalf("Reset changed Care:\n%+v\n%+v", r.Player.Care, before)
	}
	_, err := step(t, r.Player, Buy{}, t0.Add(time.Hour))
	wantErr(t, err, ErrPaused)
}
