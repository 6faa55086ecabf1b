package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/lesclefsdutresor/clefs/storage"
)

// errAudit says the audit found players whose books do not balance.
var errAudit = errors.New("audit failed")

// runAudit checks balance = start + granted + won + daily − staked (and the
// other invariants of storage.CheckInvariant) for every player, prints each
// breach and fails (exit status 1) if there is any.
func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: clefs audit [-redis URL | -data FILE]\n\nChecks balance = start + granted + won + daily − staked for every player;\nexits 1 on any breach. Stop the bot first when using the embedded store.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, "audit", args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("audit: unexpected argument %q", fs.Arg(0))}
	}
	st, d, err := sf.open(ctx, true)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer st.Close()
	var players, bad int
	var credits int64
	err = d.ExportPlayers(ctx, func(r storage.Record) error {
		players++
		credits += r.BalanceCents
		p, _, err := r.Player()
		if err != nil {
			bad++
			fmt.Fprintf(stdout, "BREACH guild %d user %d: %v\n", r.GuildID, r.UserID, err)
		} else if err := storage.CheckInvariant(p); err != nil {
			bad++
			fmt.Fprintf(stdout, "BREACH %v\n", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	fmt.Fprintf(stdout, "%d players checked, %d breaches, %d cents held in total\n", players, bad, credits)
	if bad > 0 {
		return fmt.Errorf("audit: %w: %d of %d players break the invariant", errAudit, bad, players)
	}
	return nil
}
