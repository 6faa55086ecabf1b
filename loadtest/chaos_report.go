package loadtest

import (
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes the report as indented JSON (durations in nanoseconds).
func (r *ChaosReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteText writes the report for a reader.
func (r *ChaosReport) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "chaos: store %s; %d players per transport; faults on %.0f%% of REST calls for %s (%s; seed %d, 429s with retry_after %s), %d gateway drops\n",
		r.Store, r.Players, 100*r.Fraction, r.Duration, strings.Join(r.Kinds, ", "), r.Seed, r.RetryAfter, r.Drops)
	for _, ph := range r.Phases {
		fmt.Fprintf(&b, "\n%s:\n", ph.Transport)
		fmt.Fprintf(&b, "  interactions: %d (%d in the recovery), %d failed and tried again, %d not delivered (no gateway); %d results seen during the faults, %d chests\n",
			ph.Interactions, ph.RecoveryInteractions, ph.Failed, ph.NotDelivered, ph.Cycles, ph.Chests)
		fmt.Fprintf(&b, "  faults: %d in all, %d on REST calls:", ph.FaultsTotal, ph.RESTFaults)
		for _, k := range keysInOrder(ph.Faults) {
			fmt.Fprintf(&b, " %s %d,", k, ph.Faults[k])
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "  tickets: %d bought; result shown %d, shown in the recovery %d, only in the history %d, left open %d; /play handed back a ticket already shown %d times; history read %d times\n",
			ph.Tickets, ph.Seen, ph.SeenInRecovery, ph.OnlyInHistory, ph.Open, ph.ResumedByPlay, ph.HistoryReads)
		fmt.Fprintf(&b, "  time to result (first send → the card shows it), every action: %s\n", ph.TimeToResult)
		fmt.Fprintf(&b, "  time to result of the %d actions hit by one 429 (and no other fault): %s\n", ph.Hit429, ph.TimeToResult429)
		if ph.Hit429 > 0 {
			verdict := "within"
			if ph.TimeToResult429.P99 > ph.Bound429 {
				verdict = "OVER"
			}
			fmt.Fprintf(&b, "    p99 %s vs retry_after + 1 s = %s: %s (%d of %d within; a target, not a verdict)\n",
				round(ph.TimeToResult429.P99), ph.Bound429, verdict, ph.Within429, ph.Hit429)
		}
		fmt.Fprintf(&b, "  time to result of the %d actions hit by two 429s or more (and no other fault): %s\n", ph.Hit429Multi, ph.TimeToResult429Multi)
		fmt.Fprintf(&b, "  time to result of the %d actions hit by a 429 and another fault: %s\n", ph.Hit429Mixed, ph.TimeToResult429Mixed)
		fmt.Fprintf(&b, "  recovery: %s\n", round(ph.RecoveryDuration))
		if len(ph.Excused) > 0 {
			fmt.Fprintf(&b, "  excused: %d refusals that are no fault of the bot (%d sends whose gateway write failed in a drop):\n", len(ph.Excused), ph.LostDispatch)
			for k, e := range ph.Excused {
				if k == 3 {
					fmt.Fprintf(&b, "    … %d more\n", len(ph.Excused)-k)
					break
				}
				fmt.Fprintf(&b, "    %s\n", e)
			}
		}
		for _, f := range ph.Failures {
			fmt.Fprintf(&b, "  refused by the fake Discord: %s\n", f)
		}
	}
	fmt.Fprintf(&b, "\nbooks over every player: balance %d = start %d − staked %d + won %d: %t\n",
		r.Balance, r.Start, r.Staked, r.Won, r.Balance == r.Start-r.Staked+r.Won)
	fmt.Fprintf(&b, "breaches: %d (", r.BreachTotal)
	for k, kind := range breachKinds {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", kind, r.Breaches[kind])
	}
	b.WriteString(")\n")
	for _, br := range r.FirstBreaches {
		fmt.Fprintf(&b, "  BREACH %s\n", br)
	}
	fmt.Fprintf(&b, "elapsed: %s\n", round(r.Elapsed))
	if r.Cleanup != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.Cleanup)
	}
	for _, e := range r.FirstErrors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
