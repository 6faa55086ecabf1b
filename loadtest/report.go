package loadtest

import (
	"encoding/json"
	"fmt"
	"io"
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
	fmt.Fprintf(&b, "store: %s\n", r.Store)
	fmt.Fprintf(&b, "%d players in %d guilds; each phase measured for %s after a warm-up of %s\n",
		r.Players, len(r.Guilds), r.Duration, r.Warmup)
	b.WriteString("a play cycle = /play, then Auto on its card (then the chest when one is due)\n")
	for _, ph := range r.Phases {
		writePhase(&b, ph)
	}
	if c := r.Ceiling; c != nil {
		fmt.Fprintf(&b, "\nstore's own ceiling (its steps called directly by %d goroutines, no handler, no transport):\n", c.Players)
		fmt.Fprintf(&b, "  %.0f cycles/s, %.0f store calls/s, %d errors\n", c.CyclesPerSec, float64(c.StoreCalls)/c.Elapsed.Seconds(), c.Errors)
		fmt.Fprintf(&b, "  CPU per cycle: %s\n", cpuLine(*c, "this process"))
		writeServer(&b, *c)
		for _, ph := range r.Phases {
			if ph.OfCeiling > 0 {
				fmt.Fprintf(&b, "  %s: handlers reach %.1f%% of the store's own ceiling\n", ph.Name, 100*ph.OfCeiling)
			}
		}
	}
	if f := r.Floor; f != nil {
		fmt.Fprintf(&b, "\nRedis floor (EVAL \"return 1\" 0 from %d goroutines, %s): %.0f calls/s, %s of Redis CPU per EVAL, %s per cycle (2 round trips); %.0f bytes to Redis and %.0f from it per EVAL\n",
			f.Goroutines, round(f.Elapsed), float64(f.Calls)/f.Elapsed.Seconds(), round(f.PerEval), round(f.PerCycle), f.ToServerPerEval, f.FromServerPerEval)
	}
	b.WriteString("\n")
	r.Audit.writeText(&b)
	if r.Cleanup != "" {
		fmt.Fprintf(&b, "cleanup: %s\n", r.Cleanup)
	}
	if len(r.FirstErrors) > 0 {
		b.WriteString("\nfirst errors:\n")
		for _, e := range r.FirstErrors {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePhase writes one transport's phase.
func writePhase(b *strings.Builder, ph Phase) {
	mode := fmt.Sprintf("closed loop, %d players", ph.Players)
	if ph.Rate > 0 {
		mode = fmt.Sprintf("open loop at %.0f interactions/s, %d players", ph.Rate, ph.Players)
	}
	fmt.Fprintf(b, "\n%s (%s), %s:\n", ph.Name, mode, round(ph.Elapsed))
	fmt.Fprintf(b, "  %.0f cycles/s, %.0f interactions/s; %d cycles, %d interactions, %d chests, %d errors\n",
		ph.CyclesPerSec, ph.InteractionsPerSec, ph.Cycles, ph.Interactions, ph.Chests, ph.Errors)
	if sd := ph.SendDelay; sd != nil {
		fmt.Fprintf(b, "  send delay (schedule → send, the load generator's part): p50 %s, p99 %s, max %s\n",
			round(sd.P50), round(sd.P99), round(sd.Max))
	}
	who := "this process (bot + fake Discord + load generator)"
	if ph.BotCPU > 0 {
		who = "this process (fake Discord + load generator)"
		fmt.Fprintf(b, "  bot's own CPU (its process, /proc/PID/stat): %s per interaction, %s per cycle (%.2f CPUs busy)\n",
			round(ph.BotCPUPerInteraction), round(ph.BotCPU/time.Duration(max(ph.Cycles, 1))), ph.BotCPU.Seconds()/ph.Elapsed.Seconds())
	}
	fmt.Fprintf(b, "  CPU per cycle: %s\n", cpuLine(ph, who))
	writeServer(b, ph)
	from := "receipt"
	if ph.Rate > 0 {
		from = "scheduled send"
	}
	fmt.Fprintf(b, "  latency from %s to response:\n", from)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "    kind\tn\tp50\tp95\tp99\tmax\t")
	for _, k := range append(kinds, KindAll) {
		if l, ok := ph.Latency[k]; ok {
			fmt.Fprintf(tw, "    %s\t%d\t%s\t%s\t%s\t%s\t\n", k, l.N, round(l.P50), round(l.P95), round(l.P99), round(l.Max))
		}
	}
	tw.Flush()
	if ph.Rate > 0 {
		verdict := "met"
		if p99 := ph.Latency[KindAll].P99; p99 > TargetP99 || ph.Latency[KindAll].N == 0 {
			verdict = "NOT met"
		}
		fmt.Fprintf(b, "  p99 %s at %.0f/s; the target (p99 ≤ %s at 1,000/s on Redis) is %s here\n",
			round(ph.Latency[KindAll].P99), ph.Rate, TargetP99, verdict)
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
	line := fmt.Sprintf("  Redis per cycle: CPU %s", round(ph.ServerCPUPerCycle))
	if ph.FloorRatio > 0 {
		line += fmt.Sprintf(" = %.2f× the floor", ph.FloorRatio)
	}
	fmt.Fprintf(b, "%s; %.0f bytes to Redis, %.0f bytes from Redis; %.2f commands (those scripts call included)\n",
		line, ph.ToServerPerCycle, ph.FromServerPerCycle, ph.ServerCommandsPerCycle)
}

// cpuLine describes a phase's CPU use per cycle.
func cpuLine(p Phase, who string) string {
	busy := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		busy = p.CPU.Seconds() / s
	}
	line := fmt.Sprintf("%s %s (%.2f CPUs busy)", who, round(p.CPUPerCycle), busy)
	if p.ServerCPU > 0 {
		line += fmt.Sprintf(", Redis server %s (%.2f CPUs busy)", round(p.ServerCPUPerCycle), p.ServerCPU.Seconds()/p.Elapsed.Seconds())
	}
	return line
}

// writeText writes the audit's line, and the players whose books do not
// balance.
func (a Audit) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "audit: %d players, %d plays in the store for %d cycles completed, %d chests; ", a.Players, a.Plays, a.Cycles, a.Chests)
	if len(a.Unbalanced) == 0 {
		b.WriteString("every balance = start − staked + won\n")
		return
	}
	b.WriteString("UNBALANCED:\n")
	for _, u := range a.Unbalanced {
		fmt.Fprintf(b, "  %s\n", u)
	}
}

// round keeps three significant digits or so, for reading.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= 100*time.Microsecond:
		return d.Round(time.Microsecond)
	default:
		return d.Round(100 * time.Nanosecond)
	}
}
