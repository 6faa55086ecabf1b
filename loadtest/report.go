package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// TargetP99 is the latency the bot aims at, from receipt to response, at
// 1,000 interactions per second on Redis.
const TargetP99 = 10 * time.Millisecond

// WriteJSON writes the report as indented JSON (durations in nanoseconds).
func (r *Report) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("loadtest: encode the report: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes the report for a reader.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "store: %s\n%d players in %d guilds; each phase measured for %s after a warm-up of %s\n",
		r.Store, r.Players, len(r.Guilds), r.Duration, r.Warmup)
	b.WriteString("a cycle = a ticket finished; an interaction phase plays loadtest.Mix, every command; an activity phase the Activity's page\n")
	for _, ph := range r.Phases {
		writePhase(&b, ph)
	}
	if c := r.Ceiling; c != nil {
		fmt.Fprintf(&b, "\nstore's own ceiling (its steps called directly by %d goroutines, no handler, no transport):\n", c.Players)
		fmt.Fprintf(&b, "  %.0f cycles/s, %.0f store calls/s, %d errors; this process %s per cycle\n",
			c.CyclesPerSec, float64(c.StoreCalls)/c.Elapsed.Seconds(), c.Errors, round(c.CPUPerCycle))
		writeServer(&b, *c)
	}
	if f := r.Floor; f != nil {
		fmt.Fprintf(&b, "\nRedis floor (EVAL \"return 1\" 0 from %d goroutines, %s): %.0f calls/s, %s of Redis CPU per EVAL, %s per cycle (2 round trips); %.0f bytes to Redis and %.0f from it per EVAL\n",
			f.Goroutines, round(f.Elapsed), float64(f.Calls)/f.Elapsed.Seconds(), round(f.PerEval), round(f.PerCycle), f.ToServerPerEval, f.FromServerPerEval)
	}
	fmt.Fprintf(&b, "\n%s", r.Audit.text())
	fmt.Fprintf(&b, "cleanup: %s\n", r.Cleanup)
	for _, e := range r.FirstErrors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePhase writes one phase of a transport.
func writePhase(b *strings.Builder, ph Phase) {
	mode := fmt.Sprintf("closed loop, %d players", ph.Players)
	if ph.Rate > 0 {
		mode = fmt.Sprintf("open loop at %.0f interactions/s, %d players", ph.Rate, ph.Players)
	}
	fmt.Fprintf(b, "\n%s (%s), %s:\n", ph.Name, mode, round(ph.Elapsed))
	fmt.Fprintf(b, "  %.0f interactions/s, %.0f cycles/s; %d interactions, %d cycles, %d chests, %d errors\n",
		ph.InteractionsPerSec, ph.CyclesPerSec, ph.Interactions, ph.Cycles, ph.Chests, ph.Errors)
	if sd := ph.SendDelay; sd != nil {
		fmt.Fprintf(b, "  send delay (schedule → send, the load generator's part): p50 %s, p99 %s, max %s\n", round(sd.P50), round(sd.P99), round(sd.Max))
	}
	who := "bot + fake Discord + load generator"
	if ph.BotCPU > 0 {
		who = "fake Discord + load generator"
		fmt.Fprintf(b, "  bot's own CPU (its process, /proc/PID/stat): %s per interaction (%.2f CPUs busy)", round(ph.BotCPUPerInteraction), ph.BotCPU.Seconds()/ph.Elapsed.Seconds())
		if ph.Reveals > 0 {
			fmt.Fprintf(b, ", %s per Activity reveal (%d reveals)", round(ph.BotCPUPerReveal), ph.Reveals)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "  this process (%s): %s per cycle (%.2f CPUs busy)\n", who, round(ph.CPUPerCycle), ph.CPU.Seconds()/ph.Elapsed.Seconds())
	writeServer(b, ph)
	fmt.Fprintf(b, "  latency from dispatch to answer:\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "    kind\tn\tp50\tp95\tp99\tmax\t")
	for _, k := range slices.Sorted(maps.Keys(ph.Latency)) {
		l := ph.Latency[k]
		fmt.Fprintf(tw, "    %s\t%d\t%s\t%s\t%s\t%s\t\n", k, l.N, round(l.P50), round(l.P95), round(l.P99), round(l.Max))
	}
	tw.Flush()
	if ph.Rate > 0 {
		verdict := "met"
		if p99 := ph.Latency[KindAll].P99; p99 > TargetP99 || ph.Latency[KindAll].N == 0 {
			verdict = "NOT met"
		}
		fmt.Fprintf(b, "  p99 %s at %.0f/s; the target (p99 ≤ %s at 1,000/s on Redis) is %s here\n", round(ph.Latency[KindAll].P99), ph.Rate, TargetP99, verdict)
	}
	for _, f := range ph.Refused {
		fmt.Fprintf(b, "  refused by the fake Discord (warm-up included): %s\n", f)
	}
}

// writeServer writes what the Redis server spent on a phase, per cycle:
// CPU beside the floor, bytes, commands. Nothing for bolt.
func writeServer(b *strings.Builder, ph Phase) {
	if ph.ServerCPU == 0 && ph.ToServer == 0 {
		return
	}
	fmt.Fprintf(b, "  Redis per cycle: CPU %s = %.2f× the floor (%.2f CPUs busy); %.0f bytes to Redis, %.0f bytes from Redis; %.2f commands (those scripts call included)\n",
		round(ph.ServerCPUPerCycle), ph.FloorRatio, ph.ServerCPU.Seconds()/ph.Elapsed.Seconds(), ph.ToServerPerCycle, ph.FromServerPerCycle, ph.ServerCommandsPerCycle)
}

// text is the audit's line, and the players whose books do not balance.
func (a Audit) text() string {
	s := fmt.Sprintf("audit: %d players, %d plays in the store for %d tickets finished, %d chests; ", a.Players, a.Plays, a.Cycles, a.Chests)
	if len(a.Unbalanced) == 0 {
		return s + "every balance = start + granted + won + daily − staked\n"
	}
	return s + "UNBALANCED:\n  " + strings.Join(a.Unbalanced, "\n  ") + "\n"
}

// round keeps three significant digits or so, for reading.
func round(d time.Duration) time.Duration {
	for unit := 100 * time.Millisecond; unit > time.Nanosecond; unit /= 10 {
		if d >= unit {
			return d.Round(unit / 100)
		}
	}
	return d
}
