package loadtest

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for a reader.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "players %d in %d guilds, measured %s (warm-up %s)\n", c.Players, c.Guilds, round(r.Load.Elapsed), c.Warmup)
	fmt.Fprintf(&b, "play cycles      %d  (%.0f cycles/s; a cycle = /%s + Auto, and the chest when due)\n",
		r.Load.Cycles, r.Load.CyclesPerSec(), c.Command)
	fmt.Fprintf(&b, "interactions     %d  (%.0f /s), chests opened %d, errors %d\n",
		r.Load.Calls, r.Load.CallsPerSec(), r.Load.Chests, r.Load.Errors)
	if r.Load.RoundTrips > 0 {
		fmt.Fprintf(&b, "round trips      %.2f per cycle (%.0f /s)\n", r.Load.RoundTripsPerCycle(), r.Load.RoundTripsPerSec())
	}
	fmt.Fprintf(&b, "CPU per cycle    %s\n", cpuLine(r.Load))
	b.WriteString("\nlatency per interaction: total = decode (gateway frame → discordgo.Interaction, as the bot) + handler + store (+ response encoding, in handler);\n" +
		"overhead = total − store = decode + handler (wall clock: under load it includes waiting for a CPU)\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tn\tstore calls\ttotal p50\tp95\tp99\tstore p50\tp99\toverhead p50\tp95\tp99\tdecode p50\tp99\thandler p50\tp99\t")
	line := func(name string, k KindReport) {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, k.Total.N, k.StoreCalls,
			round(k.Total.P50), round(k.Total.P95), round(k.Total.P99),
			round(k.Store.P50), round(k.Store.P99),
			round(k.Overhead.P50), round(k.Overhead.P95), round(k.Overhead.P99),
			round(k.Decode.P50), round(k.Decode.P99),
			round(k.Handler.P50), round(k.Handler.P99))
	}
	for _, k := range kinds {
		if kr, ok := r.Kinds[k]; ok {
			line(k, kr)
		}
	}
	line("all", r.All)
	if r.Isolated != nil {
		line("all, 1 player", *r.Isolated)
	}
	tw.Flush()

	if len(r.Steps) > 0 {
		b.WriteString("\nstore steps called by the handlers (measured phase):\n")
		names := make([]string, 0, len(r.Steps))
		for n := range r.Steps {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "  %-12s %s\n", n, r.Steps[n])
		}
	}

	if r.Direct != nil {
		d := r.Direct
		fmt.Fprintf(&b, "\nstore steps issued directly (%d goroutines, %s): %.0f cycles/s, %.0f calls/s",
			d.Workers, round(d.Elapsed), d.CyclesPerSec(), d.CallsPerSec())
		if d.RoundTrips > 0 {
			fmt.Fprintf(&b, ", %.0f round trips/s, %.2f per cycle", d.RoundTripsPerSec(), d.RoundTripsPerCycle())
		}
		fmt.Fprintf(&b, ", errors %d\n", d.Errors)
		fmt.Fprintf(&b, "  CPU per cycle: %s\n", cpuLine(*d))
		if ceil := r.CeilingFromScripts(); ceil > 0 {
			fmt.Fprintf(&b, "  ceiling = %s = %.0f cycles/s; handlers reach %.0f = %.1f%% of it\n",
				ceilingFormula(r), ceil, r.Load.CyclesPerSec(), 100*r.Load.CyclesPerSec()/ceil)
		}
	}
	if r.Raw != nil {
		fmt.Fprintf(&b, "trivial round trips (EVALSHA \"return 1\", %d goroutines, %s): %.0f /s, errors %d; CPU per 1000: this process %s",
			r.Raw.Workers, round(r.Raw.Elapsed), r.Raw.CallsPerSec(), r.Raw.Errors, round(perCycle(1000*r.Raw.CPU, r.Raw.Calls)))
		if r.Raw.ServerCPU > 0 {
			fmt.Fprintf(&b, ", Redis %s", round(perCycle(1000*r.Raw.ServerCPU, r.Raw.Calls)))
		}
		b.WriteString("\n")
		if ceil := r.CeilingFromRoundTrips(); ceil > 0 {
			fmt.Fprintf(&b, "  ceiling = raw round trips/s ÷ %.2f round trips per cycle = %.0f cycles/s; handlers reach %.1f%% of it\n",
				r.Load.RoundTripsPerCycle(), ceil, 100*r.Load.CyclesPerSec()/ceil)
		}
	}

	b.WriteString("\nmemory:\n")
	fmt.Fprintf(&b, "  start      %s\n", r.MemStart)
	if c.Populate > 0 {
		fmt.Fprintf(&b, "  populated  %s  (%d players created in %s)\n", r.MemPopulated, c.Populate, round(r.PopulateElapsed))
	}
	fmt.Fprintf(&b, "  end        %s\n", r.MemEnd)
	if len(r.FirstErrors) > 0 {
		b.WriteString("\nfirst errors:\n")
		for _, e := range r.FirstErrors {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cpuLine describes a phase's CPU use per cycle.
func cpuLine(p Phase) string {
	s := fmt.Sprintf("this process %s (%.2f CPUs busy)", round(p.CPUPerCycle()), p.CPU.Seconds()/p.Elapsed.Seconds())
	if p.ServerCPU > 0 {
		s += fmt.Sprintf(", Redis server %s (%.2f CPUs busy)", round(p.ServerCPUPerCycle()), p.ServerCPU.Seconds()/p.Elapsed.Seconds())
	}
	return s
}

func ceilingFormula(r *Report) string {
	if r.Direct.RoundTrips > 0 && r.Load.RoundTrips > 0 {
		return fmt.Sprintf("direct round trips/s ÷ %.2f round trips per cycle through the handlers", r.Load.RoundTripsPerCycle())
	}
	return "direct cycles/s"
}
