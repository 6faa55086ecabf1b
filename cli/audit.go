package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"slices"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

// errAudit: damaged records, broken books, or a leaderboard that disagrees.
var errAudit = errors.New("audit failed")

// runAudit lists every damaged record (boltstore.CheckFile on an embedded
// file), checks every other player (game.Player.Check) and each guild's
// leaderboard, and fails if anything is wrong. A player and its entry are
// written in one atomic step: a disagreement is a bug, nothing is repaired.
func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("audit", stderr, "Usage: clefs audit [-redis URL | -data FILE]\n\nLists every damaged record (on an embedded file, every damaged page too),\nchecks balance = start + granted + won + daily − staked (and the other\ninvariants) for every player, and each guild's leaderboard against the\nplayers' balances; exits 1 on any damage, breach or disagreement. Stop\nthe bot first when using the embedded store. A missing embedded file is\nan error: audit never creates one.\n\n"+storeUsage+"\n\n")
	var sf storeFlags
	sf.register(fs)
	if err := parseFlags(fs, "audit", args, 0); err != nil {
		return err
	}
	listed := -1 // the problems CheckFile listed; -1: not an embedded file
	sf.checkFile = func(path string) error {
		listed = 0
		return boltstore.CheckFile(path, func(p string) {
			listed++
			fmt.Fprintf(stdout, "DAMAGED %s\n", p)
		})
	}
	st, d, err := sf.open(ctx, mustExist, stderr)
	switch {
	case errors.Is(err, storage.ErrDamaged): // Open's error would send the operator back here
		return fmt.Errorf("audit: %w: %s listed above, and the bot cannot open the file: stop the bot, move the file aside "+
			"(keep it), and restore the newest snapshot or import the newest dump into a new file "+
			"(docs/operating.md, \"Restoring the embedded store\")", errAudit, count(listed, "problem", "problems"))
	case err != nil:
		return fmt.Errorf("audit: %w", err)
	}
	defer st.Close()
	if err := audit(ctx, st, d, stdout, listed >= 0); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if listed > 0 { // damage in a file's other records: guilds, lines
		return fmt.Errorf("audit: %w: %s in the file", errAudit, count(listed, "problem", "problems"))
	}
	return nil
}

// audit checks the players of d, then each guild's leaderboard in st,
// reporting on w (a damaged player only unless listed).
func audit(ctx context.Context, st storage.Store, d storage.Dumper, w io.Writer, listed bool) error {
	var players, bad, damaged int
	var held big.Int                          // a sum of balances may pass int64
	balances := map[uint64]map[uint64]int64{} // guild → user → balance; -1: damaged
	err := d.ExportPlayers(ctx, func(r storage.DecodedPlayer) error {
		players++
		p := r.Player
		if balances[r.ID.Guild] == nil {
			balances[r.ID.Guild] = map[uint64]int64{}
		}
		if r.Damaged != nil {
			damaged++
			balances[r.ID.Guild][r.ID.User] = -1
			if !listed {
				fmt.Fprintf(w, "DAMAGED player %d/%d: %v\n", r.ID.Guild, r.ID.User, r.Damaged.Err)
			}
			return nil
		}
		balances[r.ID.Guild][r.ID.User] = p.Balance
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
	fmt.Fprintf(w, "%s checked, %d damaged, %s, %s held in total\n", count(players, "player", "players"), damaged, count(bad, "breach", "breaches"), bigCredits(&held))

	disagree := 0
	for _, g := range slices.Sorted(maps.Keys(balances)) {
		found, err := auditBoard(ctx, st, g, balances[g])
		for _, d := range found {
			fmt.Fprintf(w, "DISAGREE guild %d user %d: %s\n", g, d.user, d.what)
		}
		if err != nil {
			return fmt.Errorf("check the leaderboard of guild %d: %w", g, err)
		}
		disagree += len(found)
	}
	fmt.Fprintf(w, "leaderboards of %s checked, %s\n", count(len(balances), "guild", "guilds"), count(disagree, "disagreement", "disagreements"))
	if disagree > 0 {
		fmt.Fprintln(w, "the leaderboard disagrees with the records: this is a bug, please report it")
	}
	if damaged > 0 {
		fmt.Fprintln(w, "a damaged record: /admin reset rewrites it (docs/operating.md, \"A damaged record\")")
	}
	switch {
	case damaged > 0:
		return fmt.Errorf("%w: %d of %d players have a damaged record, %d break the invariant, %d leaderboard disagreements", errAudit, damaged, players, bad, disagree)
	case bad > 0 && disagree > 0:
		return fmt.Errorf("%w: %d of %d players break the invariant; the leaderboard disagrees with the records in %d places (a bug: please report it)", errAudit, bad, players, disagree)
	case bad > 0:
		return fmt.Errorf("%w: %d of %d players break the invariant", errAudit, bad, players)
	case disagree > 0:
		return fmt.Errorf("%w: the leaderboard disagrees with the records in %d places (a bug: please report it)", errAudit, disagree)
	}
	return nil
}

func readBoard(ctx context.Context, st storage.Store, guild uint64) (map[uint64]int64, error) {
	b, err := st.Leaderboard(ctx, guild, math.MaxInt32, 0)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]int64, len(b.Top))
	for _, e := range b.Top {
		out[e.User] = e.Balance
	}
	return out, nil
}

// disagreement is a player whose leaderboard entry is not its balance.
type disagreement struct {
	user uint64
	what string
}

// auditBoard returns, in order, the players whose entry in the
// leaderboard of guild is not their balance the export read (user →
// balance), each read again: a player is judged only when its version is
// the same before and after the leaderboard's read (a running bot
// writes); one that keeps changing is let go.
func auditBoard(ctx context.Context, st storage.Store, guild uint64, balances map[uint64]int64) ([]disagreement, error) {
	board, err := readBoard(ctx, st, guild)
	if err != nil {
		return nil, err
	}
	var suspects []uint64
	for u, bal := range board {
		if b, ok := balances[u]; !ok || (b != bal && b != -1) { // a damaged record's balance is unknown
			suspects = append(suspects, u)
		}
	}
	for u, b := range balances {
		if _, ok := board[u]; !ok && b != -1 {
			suspects = append(suspects, u)
		}
	}
	slices.Sort(suspects)
	var found []disagreement
	for range 3 {
		if len(suspects) == 0 {
			break
		}
		before := make([]storage.Versioned, len(suspects))
		for i, u := range suspects {
			v, err := st.Load(ctx, storage.PlayerID{Guild: guild, User: u})
			if err != nil {
				return found, err
			}
			before[i] = v
		}
		board, err := readBoard(ctx, st, guild)
		if err != nil {
			return found, err
		}
		var changed []uint64
		for i, u := range suspects {
			after, err := st.Load(ctx, storage.PlayerID{Guild: guild, User: u})
			if err != nil {
				return found, err
			}
			if after.Version != before[i].Version {
				changed = append(changed, u)
				continue
			}
			bal, indexed := after.Player.Balance, board[u]
			_, onBoard := board[u]
			switch {
			case !after.Exists() && onBoard:
				found = append(found, disagreement{u, fmt.Sprintf("on the leaderboard with %s but no such player", credits(indexed))})
			case after.Exists() && !onBoard:
				found = append(found, disagreement{u, fmt.Sprintf("holds %s but is missing from the leaderboard", credits(bal))})
			case onBoard && indexed != bal:
				found = append(found, disagreement{u, fmt.Sprintf("holds %s, the leaderboard says %s", credits(bal), credits(indexed))})
			}
		}
		suspects = changed
	}
	slices.SortFunc(found, func(a, b disagreement) int { return cmp.Compare(a.user, b.user) })
	return found, nil
}

// credits and bigCredits format cents (bigCredits: a total that may pass int64) as credits.
func credits(cents int64) string { return bigCredits(big.NewInt(cents)) }

func bigCredits(cents *big.Int) string {
	unit := " credits"
	if cents.Cmp(big.NewInt(100)) == 0 {
		unit = " credit" // "1.00 credit", as the bot writes it
	}
	return game.FormatRat(new(big.Rat).SetFrac(cents, big.NewInt(100)), 2, game.English) + unit
}

// count writes n, its thousands grouped, with the English noun for it:
// "1 player", "0 players", "1,024 tickets".
func count[N int | int64](n N, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return groupInt(int64(n)) + " " + other
}
