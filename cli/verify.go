package cli

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// errMismatch: a recomputed draw is not what the player was shown.
var errMismatch = errors.New("mismatch")

// runVerify recomputes a ticket or a chest from its seeds (docs/FAIRNESS.md),
// or, with -export, every draw of a dump made under a revealed seed.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", stderr, `Usage: clefs verify -server-seed HEX -client-seed TEXT -nonce N [-keys K] [-chest N] [-commitment HEX]
       clefs verify -export FILE

Recomputes draws from their seeds, as docs/FAIRNESS.md specifies, without
the store. The first form prints one ticket (the grid, the result, the key)
and, with -chest, the lot of that chest; give -chest alone for a chest only.
The second form checks, offline, every ticket and chest of a dump drawn under
a revealed seed against what the player was shown, and the links between
them: the keys chain, ticket and chest numbers without gaps, each line's
commitment against its seed, the revealed seeds' ranges. It prints each
broken link (player, ticket or chest, link), a line per kind of check
(checked, unchecked, broken), and exits 1 on any broken link. Draws under a
seed still secret are counted, not checked; links a dump lacks the data for
(lines written by older releases) are unchecked, never "all match".
`)
	server := fs.String("server-seed", "", "the revealed server seed, 64 hex digits")
	client := fs.String("client-seed", "", "the client seed it drew with, as /fairness shows it")
	var nonce, keys, chest decimal
	fs.Var(&nonce, "nonce", "the ticket's `number` (its nonce), in decimal digits")
	fs.Var(&keys, "keys", "the `keys` held before the ticket (0, 1 or 2)")
	fs.Var(&chest, "chest", "a chest's `number`: recompute that chest (alone, or with the ticket whose third key opened it)")
	commitment := fs.String("commitment", "", "optional: the commitment shown before the seed drew, all 64 hex digits or the 8 the card shows; checked against the seed")
	export := fs.String("export", "", "a dump written by clefs export, or a player's public export (clefs export -public, /fairness export): check every ticket and chest drawn under a revealed seed")
	if err := parseFlags(fs, "verify", args, 0); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *export != "" {
		for _, name := range []string{"server-seed", "client-seed", "nonce", "keys", "chest", "commitment"} {
			if set[name] {
				return usageError{fmt.Sprintf("verify: -%s does not go with -export", name)}
			}
		}
		if err := verifyFile(ctx, *export, stdout); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		return nil
	}
	if !set["server-seed"] || !set["client-seed"] {
		return usageError{"verify: give -server-seed and -client-seed (or -export FILE)"}
	}
	if !set["nonce"] && !set["chest"] {
		return usageError{"verify: give -nonce N for a ticket, -chest N for a chest, or both"}
	}
	if set["keys"] && !set["nonce"] {
		return usageError{"verify: -keys goes with -nonce"}
	}
	seed, err := game.ParseSeed(strings.TrimSpace(*server))
	if err != nil {
		return usageError{fmt.Sprintf("verify: -server-seed: %v", err)}
	}
	// A seed that could be stored verifies: "" (records from before client
	// seeds) and seeds chosen before today's rule, with a warning.
	if err := game.CheckStoredClientSeed(*client); err != nil {
		return usageError{fmt.Sprintf("verify: -client-seed: %v", err)}
	}
	if set["nonce"] && nonce == 0 {
		return usageError{"verify: -nonce: ticket numbers start at 1"}
	}
	if keys >= game.MaxKeys {
		return usageError{fmt.Sprintf("verify: -keys %d: a player holds 0 to %d keys before a ticket", keys, game.MaxKeys-1)}
	}
	if set["chest"] && chest < 1 {
		return usageError{"verify: -chest: chest numbers start at 1"}
	}
	want := strings.ToLower(strings.TrimSpace(*commitment))
	if b, err := hex.DecodeString(want); set["commitment"] && (err != nil || len(b) != len(game.Commitment{}) && len(b) != shortCommitment) {
		return usageError{fmt.Sprintf("verify: -commitment: want %d hex digits, or the %d the card shows", 2*len(game.Commitment{}), 2*shortCommitment)}
	}

	w := bufio.NewWriter(stdout)
	got := seed.Commitment()
	matches := want == got.String() || want == got.Short()
	fmt.Fprintf(w, "server seed  %s\ncommitment   %s", seed.Hex(), got)
	switch {
	case !set["commitment"]:
		fmt.Fprintln(w)
	case want == got.Short():
		fmt.Fprintln(w, "  (matches the 8 digits shown on the card)")
	case matches:
		fmt.Fprintln(w, "  (matches -commitment)")
	default:
		fmt.Fprintf(w, "  (NOT the commitment given, %s)\n", want)
	}
	fmt.Fprintf(w, "client seed  %q\n", *client)
	if i := strings.IndexFunc(*client, game.RefusedInClientSeed); i >= 0 {
		fmt.Fprintf(w, "warning: %s\n", legacyClientWarning(*client, i))
	}
	var d game.SeededDrawer
	if set["nonce"] {
		o, err := d.Ticket(seed, *client, uint64(nonce), int(keys))
		if err != nil {
			return fmt.Errorf("verify: ticket %d: %w", nonce, err)
		}
		fmt.Fprintf(w, "\nticket #%d, %s held before\n", nonce, count(int(keys), "key", "keys"))
		writeTicket(w, o, int(keys))
	}
	if set["chest"] {
		c, err := d.ChestNumber(seed, *client, uint64(chest))
		if err != nil {
			return fmt.Errorf("verify: chest %d: %w", chest, err)
		}
		fmt.Fprintf(w, "\nchest #%d: %s, %s\n", chest, lotNames[c.Lot], credits(c.Prize))
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if set["commitment"] && !matches {
		return fmt.Errorf("verify: %w: the server seed hashes to %s, not to the commitment %s", errMismatch, got, want)
	}
	return nil
}

// decimal is a flag's number as clefs verify and the verification page
// both read it: decimal digits only, no sign, space, 0x, 0b, _ nor leading
// zero (Go's syntax, which flag.Uint64 reads, takes 010 for 8).
type decimal uint64

func (d *decimal) String() string { return strconv.FormatUint(uint64(*d), 10) }

func (d *decimal) Set(s string) error {
	if s == "" || strings.Trim(s, "0123456789") != "" || (s[0] == '0' && s != "0") {
		return errors.New("not a decimal number (digits 0 to 9 only: no sign, space, 0x, 0b, _ or leading zero)")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return errors.New("beyond 18446744073709551615")
	}
	*d = decimal(n)
	return nil
}

// legacyClientWarning warns of a client seed holding at byte i a character
// refused today (game.RefusedInClientSeed), as the verification page does.
func legacyClientWarning(client string, i int) string {
	r, _ := utf8.DecodeRuneInString(client[i:])
	return fmt.Sprintf("the client seed holds the invisible character %U at byte %d: the bot refuses it today, but a seed chosen before this rule still draws with its bytes", r, i)
}

const shortCommitment = 4

// writeTicket prints a ticket's grid, the winning row marked, and its result.
func writeTicket(w io.Writer, o game.Outcome, keysBefore int) {
	for r := range 3 {
		mark := " "
		if int(o.Row) == r && o.Tier.Winning() {
			mark = "*"
		}
		row := o.Grid.Row(r)
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %s %-7s %-7s %s", mark, row[0], row[1], row[2]), " "))
	}
	if o.Tier.Winning() {
		fmt.Fprintf(w, "result: three %ss on row %d, %s\n", o.Tier.Symbol(), o.Row+1, credits(o.Prize))
	} else {
		fmt.Fprintln(w, "result: no winning row")
	}
	switch {
	case !o.Key:
		fmt.Fprintln(w, "key:    none")
	case keysBefore == game.MaxKeys-1:
		fmt.Fprintln(w, "key:    one, the third: it opens the treasure chest (-chest N gives its lot)")
	default:
		fmt.Fprintf(w, "key:    one (%s of %d after)\n", count(keysBefore+1, "key", "keys"), game.MaxKeys)
	}
}

// lotNames are the chests' lots as verify prints them.
var lotNames = map[game.Lot]string{
	game.LotThreeGold: "three gold coins", game.LotGold: "one gold coin", game.LotSilver: "one silver coin", game.LotBronze: "one bronze coin",
}

// exportReport counts what verifyFile saw.
type exportReport struct {
	players, tickets, chests int64 // draws checked, all matching unless mismatches
	secret, forgotten, old   int64 // draws not checked: seed still secret, seed dropped, no verification data
	matched                  int64 // draws recomputed as shown
	mismatches               []string
	links                    game.Links // the links of every player, their breaks named in broken
	broken, warnings         []string   // warnings: legacy client seeds, which verify
	draws                    seedDraws
}

// seedDraws is game.SeededDrawer keeping the keyed HMAC of its last seed
// (game.FairDraws): keying afresh was most of the cost of verifying a
// ticket, and a player's draws run under a few seeds. A dump is verified
// in order, by one goroutine: seedDraws is not safe for concurrent use.
type seedDraws struct {
	seed   game.Seed
	client string
	f      *game.FairDraws // of seed and client; nil before the first draw
}

func (s *seedDraws) draws(seed game.Seed, client string) (*game.FairDraws, error) {
	if s.f == nil || seed != s.seed || client != s.client {
		f, err := game.NewFairDraws(seed, client)
		if err != nil {
			return nil, err
		}
		s.f, s.seed, s.client = f, seed, client
	}
	return s.f, nil
}

func (s *seedDraws) Ticket(seed game.Seed, client string, ticket uint64, keysHeld int) (game.Outcome, error) {
	f, err := s.draws(seed, client)
	if err != nil {
		return game.Outcome{}, err
	}
	return f.Ticket(ticket, keysHeld)
}

func (s *seedDraws) Chest(seed game.Seed, client string, seq int64) (game.Chest, error) {
	f, err := s.draws(seed, client)
	if err != nil {
		return game.Chest{}, err
	}
	return f.Chest(seq)
}

// verifyFile recomputes every draw of the dump at path made under a
// revealed seed and checks the links (game.CheckLinks), failing on a
// break; a public export (isPublicExport) goes to verifyPublicFile.
func verifyFile(ctx context.Context, path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	public := isPublicExport(f)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if public {
		return verifyPublicFile(ctx, path, f, stdout)
	}
	var r exportReport
	// A player at a time: the dump is never held whole (StreamDump).
	_, err = storage.StreamDump(bufio.NewReaderSize(f, 1<<20), func(p storage.DecodedPlayer) error {
		if r.players%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		r.verifyPlayer(p.ID, p.Player, true, p.Reveals, p.History)
		return nil
	}, nil)
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return err
	}
	if err != nil && boltstore.IsFile(path) {
		return fmt.Errorf("%s is a store file, not an export: export from it first, one player's public export "+
			"(clefs export -public -data %s -guild ID -user ID -o player.json) or every player (clefs export -data %s -o dump.json), "+
			"then clefs verify -export that file", path, path, path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return r.write(stdout, path, "players were", "the dump lacks what checking them needs", "")
}

// write prints each mismatch and break, a line per kind of check, and the
// verdict; lacking says why links are unchecked, allNote follows "all match".
// A mismatch or a break is its errMismatch, naming the file and who
// (player or players) was shown the draws.
func (r *exportReport) write(stdout io.Writer, file, who, lacking, allNote string) error {
	w := bufio.NewWriter(stdout)
	for _, m := range slices.Concat(r.mismatches, r.broken, r.warnings) {
		fmt.Fprintln(w, m)
	}
	unchecked := r.forgotten + r.old
	fmt.Fprintf(w, "%-12s %s checked, %s unchecked, %d broken (%s and %s of %s recomputed from their revealed seeds)\n",
		"draws:", groupInt(r.matched), groupInt(unchecked), len(r.mismatches),
		count(r.tickets, "ticket", "tickets"), count(r.chests, "chest", "chests"), count(r.players, "player", "players"))
	broken := make([]int, game.NumLinks)
	for _, b := range r.links.Breaks {
		broken[b.Link]++
	}
	for link := range game.NumLinks {
		unchecked += r.links.Unchecked[link]
		fmt.Fprintf(w, "%-12s %s checked, %s unchecked, %d broken\n", link.String()+":",
			groupInt(r.links.Checked[link]), groupInt(r.links.Unchecked[link]), broken[link])
	}
	if r.secret+r.forgotten+r.old > 0 {
		fmt.Fprintf(w, "draws not checked: %s drawn under seeds still secret (shown after /fairness rotate), %s whose seed is no longer kept, %s recorded before verification data\n",
			groupInt(r.secret), groupInt(r.forgotten), groupInt(r.old))
	}
	nBroken := len(r.mismatches) + len(r.links.Breaks)
	switch {
	case nBroken > 0:
		fmt.Fprintf(w, "BROKEN: %s, %s unchecked\n", count(nBroken, "link broken", "links broken"), groupInt(unchecked))
	case unchecked > 0:
		fmt.Fprintf(w, "no link broken, but %s unchecked: %s\n", groupInt(unchecked), lacking)
	default:
		fmt.Fprintln(w, "all match"+allNote)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if nBroken > 0 {
		return fmt.Errorf("%w: %s and %s of %s are not what the %s shown", errMismatch, count(len(r.mismatches), "draw", "draws"), count(len(r.links.Breaks), "link", "links"), file, who)
	}
	return nil
}

// verifyPlayer checks the draws and the links of one player's history:
// against the player p with state, else as game.CheckRevealedLinks.
func (r *exportReport) verifyPlayer(id storage.PlayerID, p game.Player, state bool, rs game.Reveals, hist []game.Entry) {
	r.players++
	for _, s := range rs {
		if i := strings.IndexFunc(s.ClientSeed, game.RefusedInClientSeed); i >= 0 {
			r.warnings = append(r.warnings, fmt.Sprintf("warning: guild %d user %d seed %d: %s", id.Guild, id.User, s.No, legacyClientWarning(s.ClientSeed, i)))
		}
	}
	for _, e := range hist {
		if e.Kind != game.KindPlay && e.Kind != game.KindChest {
			continue
		}
		v, err := p.Verify(&r.draws, rs, e)
		switch {
		case errors.Is(err, game.ErrSeedSecret):
			r.secret++
		case errors.Is(err, game.ErrSeedForgotten):
			r.forgotten++
		case errors.Is(err, game.ErrNotVerifiable):
			r.old++
		case err != nil:
			r.mismatches = append(r.mismatches, fmt.Sprintf("MISMATCH guild %d user %d: %s %d: %v", id.Guild, id.User, e.Kind, e.TicketID, err))
		case v.Match:
			r.matched++
		case e.Kind == game.KindPlay:
			r.mismatches = append(r.mismatches, fmt.Sprintf("MISMATCH guild %d user %d ticket %d (seed %d): shown %s %v key %v, recomputed %s %v key %v",
				id.Guild, id.User, e.TicketID, v.Seed.No, e.Grid, e.Tier, e.Key, v.Outcome.Grid, v.Outcome.Tier, v.Outcome.Key))
		default:
			r.mismatches = append(r.mismatches, fmt.Sprintf("MISMATCH guild %d user %d chest %d (seed %d): shown %v, recomputed %v",
				id.Guild, id.User, e.Chest, v.Seed.No, e.Lot, v.Chest.Lot))
		}
		if err == nil && e.Kind == game.KindPlay {
			r.tickets++
		} else if err == nil {
			r.chests++
		}
	}
	l := game.CheckRevealedLinks(rs, hist)
	if state {
		l = game.CheckLinks(p, rs, hist)
	}
	for link := range game.NumLinks {
		r.links.Checked[link] += l.Checked[link]
		r.links.Unchecked[link] += l.Unchecked[link]
	}
	for _, b := range l.Breaks {
		r.links.Breaks = append(r.links.Breaks, b)
		r.broken = append(r.broken, fmt.Sprintf("BROKEN guild %d user %d %s", id.Guild, id.User, b))
	}
}

// maxPublicExport bounds a public export (50 lines and reveals: a few tens of KB).
const maxPublicExport = 4 << 20

// isPublicExport reports whether the JSON in r is a public export rather
// than a dump, from its first known top-level key; a file that is neither
// is left to the dump's reader.
func isPublicExport(r io.Reader) bool {
	dec := json.NewDecoder(bufio.NewReader(r))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case "v":
			return true
		case "version", "players", "guilds":
			return false
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// verifyPublicFile is verifyFile for the public export f, read from path,
// with game.CheckRevealedLinks.
func verifyPublicFile(ctx context.Context, path string, f io.Reader, stdout io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(f, maxPublicExport+1))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxPublicExport {
		return fmt.Errorf("%s: a public export of more than %d bytes", path, maxPublicExport)
	}
	x, err := schema.DecodePublicExport(path, data)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var r exportReport
	r.verifyPlayer(storage.PlayerID{Guild: x.Guild, User: x.User}, game.AfterReveals(x.Reveals), false, x.Reveals, x.History)
	return r.write(stdout, path, "player was", "the export lacks what checking them needs", " (a public export holds no player state: the keys held now and the tickets bought are not checked)")
}
