package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// errAudit says the audit found players whose books do not balance, or a
// leaderboard index that drifted from the players or holds a malformed
// entry.
var errAudit = errors.New("audit failed")

// runAudit checks every player's state (game.Player.Check: balance =
// start + granted + won + daily − staked, computed without overflow, and
// the other invariants) and, on a store whose leaderboard index is written
// beside the players (storage.Indexer), the index against the balances. It
// prints each breach, drift and malformed index entry and fails (exit
// status 1) if there is any; with -repair it first rebuilds the index from
// the records (storage.Indexer.RebuildIndex, which drops malformed
// entries) and says how many entries changed.
func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf storeFlags
	sf.register(fs)
	repair := fs.Bool("repair", false, "rebuild the leaderboard index from the players' records, dropping malformed entries (safe while the bot plays)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: clefs audit [-redis URL | -data FILE] [-repair]\n\nChecks balance = start + granted + won + daily − staked (and the other\ninvariants) for every player, and the leaderboard index; exits 1 on any\nbreach, drift or malformed index entry. -repair rebuilds the index from the\nplayers' records, dropping malformed entries. Stop the bot first when using\nthe embedded store. A missing embedded file is an error: audit never\ncreates one.\n\n"+storeUsage+"\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, "audit", args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("audit: unexpected argument %q", fs.Arg(0))}
	}
	st, d, err := sf.open(ctx, mustExist, stderr)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer st.Close()
	if err := audit(ctx, st, d, *repair, stdout); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// errNoSeed is what a record without a seed reads when audited: a store
// keeps every player's seed, so a missing one is a breach, not a reason to
// make one up.
var errNoSeed = errors.New("no server seed stored")

type noSeeds struct{}

func (noSeeds) Read([]byte) (int, error) { return 0, errNoSeed }

// audit checks the players of d and, when st is a storage.Indexer, the
// leaderboard index (rebuilt first with repair). It reports on w and
// returns an error wrapping errAudit when anything is wrong.
func audit(ctx context.Context, st storage.Store, d storage.Dumper, repair bool, w io.Writer) error {
	var players, bad int
	var held big.Int // a sum of balances may pass int64
	err := d.ExportPlayers(ctx, func(r storage.DecodedPlayer) error {
		players++
		p := r.Player
		err := p.Check() // the store's decoding checks too; the audit says so itself
		if err == nil {
			err = p.CheckReveals(r.Reveals)
		}
		if err != nil {
			bad++
			fmt.Fprintf(w, "BREACH guild %d user %d: %v\n", r.ID.Guild, r.ID.User, err)
			return nil
		}
		held.Add(&held, big.NewInt(p.Balance))
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s checked, %s, %s held in total\n", count(players, "player", "players"), count(bad, "breach", "breaches"), bigCredits(&held))

	drift := 0
	if ix, ok := st.(storage.Indexer); ok {
		if repair {
			n, err := ix.RebuildIndex(ctx)
			if err != nil {
				return fmt.Errorf("rebuild the leaderboard index: %w", err)
			}
			fmt.Fprintf(w, "leaderboard index rebuilt: %s changed\n", count(n, "entry", "entries"))
		}
		err := ix.CheckIndex(ctx, func(x storage.IndexDrift) error {
			drift++
			switch {
			case x.Malformed != "":
				fmt.Fprintf(w, "MALFORMED guild %d: %s (audit -repair removes it)\n", x.ID.Guild, x.Malformed)
			case !x.Player:
				fmt.Fprintf(w, "DRIFT guild %d user %d: in the leaderboard with %s but no such player\n", x.ID.Guild, x.ID.User, credits(x.Indexed))
			case !x.Index:
				fmt.Fprintf(w, "DRIFT guild %d user %d: holds %s but is missing from the leaderboard\n", x.ID.Guild, x.ID.User, credits(x.Balance))
			default:
				fmt.Fprintf(w, "DRIFT guild %d user %d: holds %s, the leaderboard says %s\n", x.ID.Guild, x.ID.User, credits(x.Balance), credits(x.Indexed))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("check the leaderboard index: %w", err)
		}
		fmt.Fprintf(w, "leaderboard index: %s drifted\n", count(drift, "entry", "entries"))
	} else if repair {
		fmt.Fprintln(w, "leaderboard index: written with the players, nothing to repair")
	}
	switch {
	case bad > 0 && drift > 0:
		return fmt.Errorf("%w: %d of %d players break the invariant; %d leaderboard entries drifted (run audit -repair)", errAudit, bad, players, drift)
	case bad > 0:
		return fmt.Errorf("%w: %d of %d players break the invariant", errAudit, bad, players)
	case drift > 0:
		return fmt.Errorf("%w: %d leaderboard entries drifted (run audit -repair)", errAudit, drift)
	}
	return nil
}

// credits formats cents as credits: "249.50 credits".
func credits(cents int64) string {
	return game.FormatCents(cents, game.English) + " credits"
}

// bigCredits formats a total of cents, which may pass int64, as credits.
func bigCredits(cents *big.Int) string {
	unit := " credits"
	if cents.Cmp(big.NewInt(100)) == 0 {
		unit = " credit" // "1.00 credit", as the bot writes it
	}
	return game.FormatRat(new(big.Rat).SetFrac(cents, big.NewInt(100)), 2, game.English) + unit
}

// count writes n with the English noun for it: "1 player", "0 players".
func count[N int | int64](n N, one, other string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, other)
}
