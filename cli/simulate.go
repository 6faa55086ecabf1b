package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// runSimulate simulates many plays on every core and compares what it saw
// with the exact odds.
func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("simulate", stderr, "Usage: clefs simulate [-n PLAYS] [-seed N] [-workers N] [-fair] [-progress]\n\nSimulates a player's plays (keys accumulate, chests open) and compares the\ncounts, the key rates, the chest lots and the return to player with the\nexact odds (z-scores, chi-square tests, 99% confidence interval). With -fair,\nthe plays are drawn as in production (docs/FAIRNESS.md), about 10 times slower.\n")
	n := fs.String("n", "100000000", "number of plays (digits, _ allowed, or a power of ten such as 1e9)")
	seed := fs.Uint64("seed", 1, "seed; the same seed and -n give the same figures, whatever -workers")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines playing in parallel")
	fair := fs.Bool("fair", false, "draw every play with its grid, and every chest, through the verifiable path (HMAC-SHA256, as in production) instead of the fast one")
	progress := fs.Bool("progress", isTerminal(stderr), "report progress on stderr every second (default: when stderr is a terminal)")
	if err := parseFlags(fs, "simulate", args, 0); err != nil {
		return err
	}
	plays, err := parseCount(*n)
	if err != nil {
		return usageError{fmt.Sprintf("simulate: -n: %v", err)}
	}
	if *workers < 1 {
		return usageError{fmt.Sprintf("simulate: -workers %d, want at least 1", *workers)}
	}

	var done atomic.Int64
	cfg := game.SimConfig{Plays: plays, Seed: *seed, Workers: *workers, Fair: *fair, OnChunk: func(k int64) { done.Add(k) }}
	start := time.Now()
	stopProgress := func() {}
	if *progress {
		stopProgress = reportProgress(stderr, &done, plays, start)
	}
	r, err := game.Simulate(ctx, cfg)
	elapsed := time.Since(start)
	stopProgress()
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	if err := writeSimReport(stdout, r, elapsed); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	return nil
}

// parseCount reads a positive count: digits with optional underscores or
// commas, or a power of ten written 1e9 (every count up to 1e15 is exact in
// a float64).
func parseCount(s string) (int64, error) {
	f, err := strconv.ParseFloat(strings.NewReplacer("_", "", ",", "").Replace(s), 64)
	if err != nil || f != math.Trunc(f) || f < 1 || f > 1e15 {
		return 0, fmt.Errorf("%q is not a whole number of plays between 1 and 1e15", s)
	}
	return int64(f), nil
}

// isTerminal reports whether x, a reader or a writer, is a terminal.
func isTerminal(x any) bool {
	f, ok := x.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// reportProgress writes the progress to w every second until the returned
// function is called.
func reportProgress(w io.Writer, done *atomic.Int64, total int64, start time.Time) (stop func()) {
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				d := done.Load()
				fmt.Fprintf(w, "\rsimulate: %5.1f%%  %s plays  done\n", 100*float64(d)/float64(total), groupInt(d))
				return
			case <-tick.C:
				d := done.Load()
				s := time.Since(start).Seconds()
				fmt.Fprintf(w, "\rsimulate: %5.1f%%  %s plays  %s plays/s ", 100*float64(d)/float64(total),
					groupInt(d), groupInt(int64(float64(d)/s)))
			}
		}
	}()
	return func() { close(quit); <-finished }
}

func groupInt(n int64) string { return game.FormatRat(big.NewRat(n, 1), 0, game.English) }

// groupFloat formats f with one decimal and grouped thousands.
func groupFloat(f float64) string {
	return game.FormatRat(new(big.Rat).SetFloat64(f), 1, game.English)
}

func writeSimReport(w io.Writer, r game.SimReport, elapsed time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rate := float64(r.Plays) / elapsed.Seconds()
	draws := "fast draws: ChaCha8, outcomes only"
	if r.Fair {
		draws = "verifiable draws: HMAC-SHA256, with grids"
	}
	fmt.Fprintf(w, "Simulated %s plays (seed %d, %d workers, %s) in %.2f s: %s plays/s\n\n",
		groupInt(r.Plays), r.Seed, r.Workers, draws, elapsed.Seconds(), groupInt(int64(rate)))

	fmt.Fprintln(tw, "result\tobserved\texpected\tz\t")
	for t := game.TierGem; t < game.NumTiers; t++ {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%+.2f\t\n", t, groupInt(r.Tiers[t]), groupFloat(r.ExpectedTier(t)), r.TierZ(t))
	}
	fmt.Fprintf(tw, "loss\t%s\t%s\t%+.2f\t\n", groupInt(r.Tiers[game.TierLoss]), groupFloat(r.ExpectedTier(game.TierLoss)), r.TierZ(game.TierLoss))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Chi-square, main game (for each keys held: 6 tiers, loss with key, loss without): %.2f on %d df, p = %.4f\n\n",
		r.MainFit.Stat, r.MainFit.DF, r.MainFit.P)

	fmt.Fprintln(tw, "keys held\tplays\tkeys collected\trate\texact\tz\t")
	for k := 0; k < game.MaxKeys; k++ {
		s := r.ByKeys[k]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.6f\t%.6f\t%+.2f\t\n", k, groupInt(s.Plays), groupInt(s.Keys), r.KeyRate(k),
			float64(game.KeyWeight(k))/float64(game.Pool), r.KeyZ(k))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "Chests opened: %s (one every %.4f plays; exact 9)\n", groupInt(r.Chests), float64(r.Plays)/float64(r.Chests))
	fmt.Fprintln(tw, "lot\tobserved\texpected\tz\t")
	for l := game.Lot(0); l < game.NumLots; l++ {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%+.2f\t\n", l, groupInt(r.Lots[l]), groupFloat(r.ExpectedLot(l)), r.LotZ(l))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Chi-square, chest lots: %.2f on %d df, p = %.4f\n\n", r.ChestFit.Stat, r.ChestFit.DF, r.ChestFit.P)

	exact, _ := r.ExactRTP.Float64()
	verdict := "inside"
	if exact < r.RTPLow || exact > r.RTPHigh {
		verdict = "OUTSIDE"
	}
	fmt.Fprintf(w, "Staked %s, won %s (main game %s, chests %s)\n", game.FormatCents(r.Staked, game.English),
		game.FormatCents(r.MainWon+r.ChestWon, game.English), game.FormatCents(r.MainWon, game.English),
		game.FormatCents(r.ChestWon, game.English))
	fmt.Fprintf(w, "Return to player: %.4f%%, 99%% interval [%.4f%%, %.4f%%]; exact %s (%s the interval)\n",
		100*r.RTP, 100*r.RTPLow, 100*r.RTPHigh, game.FormatPercent(r.ExactRTP, 0, game.English), verdict)
	return nil
}
