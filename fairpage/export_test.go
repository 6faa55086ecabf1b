package fairpage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// publicExport is the public export of one player (the JSON the page reads):
// its history lines and revealed seeds, oldest first.
type publicExport struct {
	V     int             `json:"v,omitempty"`
	Guild string          `json:"guild"`
	User  string          `json:"user"`
	P     map[string]any  `json:"p,omitempty"` // a dump's player record: the page ignores it
	H     []schema.Line   `json:"h"`
	R     []schema.Reveal `json:"r"`
}

// built is an export and what Go knows of it.
type built struct {
	ex       publicExport
	p        game.Player // the player's state at the end
	revealed int         // draws under revealed seeds, all fair
	secret   int         // draws under the current seed
	links    game.Links  // what game.CheckRevealedLinks finds (goCheck)
}

// buildExport plays tickets 1..12 of a player under three seeds: seed 1
// draws tickets 1..5, seed 2 (another client seed) 6..10, both revealed;
// seed 3, current and secret, 11..12. Every third key opens a chest at
// once, under the seed current then. It tries generator seeds until a chest
// falls under a revealed seed.
func buildExport(t *testing.T) built {
	t.Helper()
	for try := uint64(0); try < 1000; try++ {
		if b, ok := tryExport(t, rand.New(rand.NewPCG(try, 99))); ok {
			return b
		}
	}
	t.Fatal("no export with a chest under a revealed seed in 1000 tries")
	return built{}
}

func tryExport(t *testing.T, r *rand.Rand) (built, bool) {
	seeds := [4]game.Seed{randomSeed(r), randomSeed(r), randomSeed(r), randomSeed(r)}
	clients := [3]string{"3f9a0c1d2e4b5a69", "Trésor 🔑\u200bclé", "9c0ffee0deadbeef"} // seed 2's chosen before the rule on invisible characters
	lastTicket := [3]uint64{5, 10, 12}
	var b built
	var d game.SeededDrawer
	at, balance := int64(1_700_000_000_000), int64(2000)
	keys, chests := 0, int64(0)
	var chestRange [3][2]int64 // per seed: first and last chest
	for i := range chestRange {
		chestRange[i] = [2]int64{1, 0}
	}
	lines := []schema.Line{{At: at, Kind: "daily", Amount: 100, Balance: balance + 100}}
	balance += 100
	seedOf := func(n uint64) int {
		for s, last := range lastTicket {
			if n <= last {
				return s
			}
		}
		return 2
	}
	for n := uint64(1); n <= 12; n++ {
		s := seedOf(n)
		if n > 1 && s != seedOf(n-1) {
			chestRange[s] = [2]int64{chests + 1, chests}
		}
		o, err := d.Ticket(seeds[s], clients[s], n, keys)
		if err != nil {
			t.Fatal(err)
		}
		at += 60_000
		balance += o.Prize - 50
		kb := keys
		lines = append(lines, schema.Line{At: at, Kind: "play", Ticket: n, Tier: o.Tier.String(), Key: o.Key, Amount: o.Prize - 50,
			Balance: balance, KeysBefore: &kb, Grid: o.Grid.String(), Commitment: seeds[s].Commitment().String()})
		if s < 2 {
			b.revealed++
		} else {
			b.secret++
		}
		if !o.Key {
			continue
		}
		if keys++; keys < game.MaxKeys {
			continue
		}
		keys, chests = 0, chests+1
		c, err := d.Chest(seeds[s], clients[s], chests)
		if err != nil {
			t.Fatal(err)
		}
		balance += c.Prize
		chestRange[s][1] = chests
		lines = append(lines, schema.Line{At: at + 1000, Kind: "chest", Lot: c.Lot.String(), Amount: c.Prize, Balance: balance,
			Chest: uint64(chests), Commitment: seeds[s].Commitment().String()})
		if s < 2 {
			b.revealed++
		} else {
			b.secret++
		}
	}
	if chestRange[0][1] < chestRange[0][0] && chestRange[1][1] < chestRange[1][0] {
		return built{}, false // no chest under a revealed seed
	}
	b.ex = publicExport{V: 1, Guild: "111111111111111111", User: "222222222222222222", H: lines}
	first := uint64(1)
	for s := range 2 {
		b.ex.R = append(b.ex.R, schema.Reveal{No: int64(s + 1), Server: seeds[s].Hex(), Client: clients[s],
			FirstTicket: first, LastTicket: lastTicket[s], FirstChest: uint64(chestRange[s][0]), LastChest: uint64(max(chestRange[s][1], 0)),
			Committed: 1_700_000_000_000, Revealed: 1_700_000_000_000 + int64(s+1)*3_600_000, Next: seeds[s+1].Commitment().String()})
		first = lastTicket[s] + 1
	}
	b.p = game.Player{Balance: balance, Keys: keys, TicketSeq: 12, ChestSeq: chests, Seed: seeds[2], NextSeed: seeds[3],
		ClientSeed: clients[2], SeedNo: 3, SeedTicket: 10, SeedChest: chestRange[2][0] - 1}
	return b, true
}

// goCheck checks b with package game, as clefs verify -export would: the
// fixture must be sound before the page is asked about it.
func goCheck(t *testing.T, b *built) {
	t.Helper()
	var hist []game.Entry
	for i, l := range b.ex.H {
		e, err := l.Game(fmt.Sprintf("h[%d]", i))
		if err != nil {
			t.Fatal(err)
		}
		hist = append(hist, e)
	}
	var rs game.Reveals
	for i, r := range b.ex.R {
		gr, err := r.Game(fmt.Sprintf("r[%d]", i))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, gr)
	}
	if err := b.p.CheckReveals(rs); err != nil {
		t.Fatal(err)
	}
	if l := game.CheckLinks(b.p, rs, hist); len(l.Breaks) > 0 {
		t.Fatalf("the fixture breaks links: %v", l.Breaks)
	}
	if b.links = game.CheckRevealedLinks(rs, hist); len(b.links.Breaks) > 0 {
		t.Fatalf("the fixture, without the player's state, breaks links: %v", b.links.Breaks)
	}
	matched := 0
	for _, e := range hist {
		if e.Kind != game.KindPlay && e.Kind != game.KindChest {
			continue
		}
		v, err := b.p.Verify(game.SeededDrawer{}, rs, e)
		if err == nil && v.Match {
			matched++
		}
	}
	if matched != b.revealed {
		t.Fatalf("game verifies %d draws of the fixture, want %d", matched, b.revealed)
	}
}

type counts struct {
	Checked, Unchecked, Broken int
}

// pageProblem is a mismatch or a broken link: Fr in French, En in clefs
// verify -export's words.
type pageProblem struct {
	Link, Kind, N, Fr, En string
}

type pageReport struct {
	OK                       bool
	Field, Error, Cli        string
	Players, Tickets, Chests int
	Secret, Forgotten, Old   int
	Counts                   map[string]counts
	Problems                 []pageProblem
	Broken, Unchecked        int
	Verdict, Summary         string
}

func checkExport(t *testing.T, ctx context.Context, v any) pageReport {
	t.Helper()
	return eval[pageReport](t, ctx, `clefs.checkExport(`+js(js(v))+`)`) // the export's text, as a JavaScript string
}

// hasProblem reports whether rep lists a problem of link about kind n.
func hasProblem(rep pageReport, link, kind string, n uint64) bool {
	for _, p := range rep.Problems {
		if p.Link == link && p.Kind == kind && p.N == fmt.Sprint(n) {
			return true
		}
	}
	return false
}

func clone(ex publicExport) publicExport {
	c := ex
	c.H = make([]schema.Line, len(ex.H))
	for i, l := range ex.H {
		if l.KeysBefore != nil {
			kb := *l.KeysBefore
			l.KeysBefore = &kb
		}
		c.H[i] = l
	}
	c.R = append([]schema.Reveal(nil), ex.R...)
	return c
}

func testExport(t *testing.T, ctx context.Context) {
	b := buildExport(t)
	goCheck(t, &b)

	rep := checkExport(t, ctx, b.ex)
	if !rep.OK || rep.Verdict != "all-match" || rep.Counts["draws"].Checked != b.revealed || rep.Secret != b.secret ||
		rep.Broken != 0 || rep.Unchecked != 0 || len(rep.Problems) != 0 {
		t.Fatalf("the export as played: %+v; want all %d draws under revealed seeds checked, %d secret", rep, b.revealed, b.secret)
	}
	if !strings.HasPrefix(rep.Summary, "warning: guild 111111111111111111 user 222222222222222222 seed 2: the client seed holds the invisible character U+200B at byte 12: ") {
		t.Errorf("seed 2's legacy client seed: no warning in\n%s", rep.Summary)
	}
	// The page counts each link as game does without the player's state.
	for link, name := range []string{"keys", "numbers", "commitments", "ranges"} {
		if c := rep.Counts[name]; c.Checked == 0 || c.Checked != int(b.links.Checked[link]) || c.Unchecked != int(b.links.Unchecked[link]) || c.Broken != 0 {
			t.Errorf("link %s: %+v, want %d checked and %d unchecked as game.CheckRevealedLinks", name, c, b.links.Checked[link], b.links.Unchecked[link])
		}
	}

	// The keys held before a ticket changed, its grid redrawn to match:
	// the draw recomputes, the keys chain breaks.
	{
		ex := clone(b.ex)
		i := firstPlay(t, ex, 3)
		l := &ex.H[i]
		kb := (*l.KeysBefore + 1) % game.MaxKeys
		seed, err := game.ParseSeed(ex.R[0].Server)
		if err != nil {
			t.Fatal(err)
		}
		o, err := game.SeededDrawer{}.Ticket(seed, ex.R[0].Client, l.Ticket, kb)
		if err != nil {
			t.Fatal(err)
		}
		l.KeysBefore, l.Grid, l.Tier, l.Key = &kb, o.Grid.String(), o.Tier.String(), o.Key
		rep := checkExport(t, ctx, ex)
		if rep.Verdict != "broken" || !hasProblem(rep, "keys", "ticket", 3) || rep.Counts["draws"].Broken != 0 {
			t.Errorf("ticket 3 with %d keys before: %+v, want the keys chain broken at ticket 3 and every draw matching", kb, rep)
		}
		sameAsCLI(t, "keys before changed", ex, rep)
	}

	// A grid changed: the draw does not recompute.
	{
		ex := clone(b.ex)
		l := &ex.H[firstPlay(t, ex, 2)]
		l.Grid = l.Grid[3:] + l.Grid[:3] // the rows turned: another grid of the same letters
		rep := checkExport(t, ctx, ex)
		if rep.Verdict != "broken" || !hasProblem(rep, "draws", "ticket", 2) {
			t.Errorf("ticket 2's grid changed: %+v, want a mismatch naming ticket 2", rep)
		}
		sameAsCLI(t, "a grid changed", ex, rep)
		// In French, wholly: the tiers named in French, the counts agreed.
		setAndClick(t, ctx, ex)
		text := eval[string](t, ctx, `document.getElementById('x-result').innerText`)
		if fr := rep.Problems[0].Fr; !strings.Contains(text, "ROMPU : 1 tirage ou lien rompu, 0 non vérifié.") || strings.Contains(fr, ex.H[firstPlay(t, ex, 2)].Tier) ||
			!strings.Contains(fr, "montré "+l.Grid+" trois ") && !strings.Contains(fr, "montré "+l.Grid+" perdant") {
			t.Errorf("a grid changed, in French: %s\n%s", fr, text)
		}
	}

	// The first revealed seed removed: its range is missing.
	{
		ex := clone(b.ex)
		ex.R = ex.R[1:]
		rep := checkExport(t, ctx, ex)
		if rep.Verdict != "broken" || !hasProblem(rep, "ranges", "seed", 2) || !hasProblem(rep, "ranges", "ticket", 1) {
			t.Errorf("seed 1 removed: %+v, want seeds 1 missing and ticket 1 in no range", rep)
		}
		sameAsCLI(t, "seed 1 removed", ex, rep)
	}

	// No reveal kept ("r": []): nothing to count of the seeds' ranges.
	{
		ex := clone(b.ex)
		ex.R = []schema.Reveal{}
		sameAsCLI(t, "no reveals", ex, checkExport(t, ctx, ex))
	}

	// The seeds swapped (their ranges kept): draws and commitments break.
	{
		ex := clone(b.ex)
		ex.R[0].Server, ex.R[1].Server = ex.R[1].Server, ex.R[0].Server
		rep := checkExport(t, ctx, ex)
		if rep.Verdict != "broken" || !hasProblem(rep, "draws", "ticket", 1) || !hasProblem(rep, "commitments", "ticket", 1) {
			t.Errorf("seeds swapped: %+v, want ticket 1 mismatched and its commitment broken", rep)
		}
		sameAsCLI(t, "seeds swapped", ex, rep)
	}

	// Seed 2 is not the one seed 1 showed as the next: its commitment
	// breaks, and a reveal without that commitment leaves it unchecked.
	{
		ex := clone(b.ex)
		ex.R[0].Next = ex.R[1].Next
		rep := checkExport(t, ctx, ex)
		if rep.Verdict != "broken" || !hasProblem(rep, "commitments", "seed", 2) {
			t.Errorf("seed 1's next commitment changed: %+v, want seed 2's commitment broken", rep)
		}
		sameAsCLI(t, "next commitment changed", ex, rep)
		ex.R[0].Next = ""
		if rep = checkExport(t, ctx, ex); rep.Verdict != "unchecked" || rep.Counts["commitments"].Unchecked != 1 {
			t.Errorf("seed 1 without its next commitment: %+v, want one commitment unchecked", rep)
		}
	}

	// Ticket 11, drawn under the current seed, records seed 1's commitment:
	// seed 1 did not draw it (its range leaves it out), and the current
	// seed's commitment is taken from the lines that do not claim a
	// revealed seed, with the last reveal's next commitment or without it.
	{
		ex := clone(b.ex)
		ex.H[firstPlay(t, ex, 11)].Commitment = ex.H[firstPlay(t, ex, 1)].Commitment
		for _, nc := range []string{ex.R[1].Next, ""} {
			ex.R[1].Next = nc
			rep := checkExport(t, ctx, ex)
			if rep.Verdict != "broken" || len(rep.Problems) != 1 || !hasProblem(rep, "ranges", "ticket", 11) {
				t.Errorf("ticket 11 recording seed 1's commitment (next %q): %+v, want only ticket 11's range broken", nc, rep)
			}
			sameAsCLI(t, "a secret seed's line recording a revealed seed's commitment, next "+nc, ex, rep)
		}
	}

	// A line from before verification data: unchecked, never "all match".
	{
		ex := clone(b.ex)
		l := &ex.H[firstPlay(t, ex, 1)]
		l.KeysBefore, l.Grid, l.Commitment = nil, "", ""
		rep := checkExport(t, ctx, ex)
		if rep.Verdict != "unchecked" || rep.Counts["draws"].Unchecked != 1 || rep.Broken != 0 {
			t.Errorf("ticket 1 without its verification data: %+v, want one draw unchecked, nothing broken", rep)
		}
	}

	testRefusals(t, ctx, b)

	// The page sums up as clefs verify -export does, word for word.
	broken := clone(b.ex)
	broken.H[firstPlay(t, broken, 2)].Grid = "GGGGGGGGG"
	broken.R[0].Next = ""
	for name, ex := range map[string]publicExport{"as played": b.ex, "a grid of gems, a next commitment removed": broken} {
		sameAsCLI(t, name, ex, checkExport(t, ctx, ex))
	}

	// The visible page says what the API says.
	setAndClick(t, ctx, b.ex)
	text := eval[string](t, ctx, `document.getElementById('x-result').innerText`)
	for _, w := range []string{"Tout concorde", fmt.Sprintf("draws:       %d checked, 0 unchecked, 0 broken", b.revealed), "seed ranges: ", "\nall match (a public export"} {
		if !strings.Contains(text, w) {
			t.Errorf("the export's result does not say %q:\n%s", w, text)
		}
	}
	ex := clone(b.ex)
	ex.R = ex.R[1:]
	// A file chosen: read locally, checked at once.
	path := writeExport(t, ex)
	eval[bool](t, ctx, `document.getElementById('x-result').dataset.verdict = ''; true`)
	do(t, ctx, chromedp.SetUploadFiles("#x-file", []string{path}))
	if v, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById('x-result').dataset.verdict`, chromedp.WithPollingTimeout(10*time.Second))); err != nil || v != "broken" {
		t.Errorf("the export chosen as a file: verdict %q (%v), want broken", v, err)
	}
	setAndClick(t, ctx, ex)
	text = eval[string](t, ctx, `document.getElementById('x-result').innerText`)
	if !strings.Contains(text, "ROMPU") || !strings.Contains(text, "BROKEN: ") || strings.Contains(text, "Tout concorde") || strings.Contains(text, "all match") || !strings.Contains(text, "ticket 1 : plages des graines") {
		t.Errorf("a broken export's result:\n%s", text)
	}
}

// setAndClick pastes v into the export form, clicks, and waits for the result.
func setAndClick(t *testing.T, ctx context.Context, v any) {
	t.Helper()
	text, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `(() => { const res = document.getElementById('x-result'); res.dataset.verdict = '';
		document.getElementById('x-text').value = `+js(string(text))+`; document.getElementById('x-go').click();
		return new Promise(ok => { const f = () => res.dataset.verdict ? ok(true) : setTimeout(f, 10); f(); }); })()`)
}

// firstPlay is the index of ticket n's line.
func firstPlay(t *testing.T, ex publicExport, n uint64) int {
	t.Helper()
	for i, l := range ex.H {
		if l.Kind == "play" && l.Ticket == n {
			return i
		}
	}
	t.Fatalf("no ticket %d in the export", n)
	return 0
}

// testExactJSON checks that the page reads integers beyond 2^53 exactly,
// with source text access and with its fallback.
func testExactJSON(t *testing.T, ctx context.Context) {
	const text = `{"t":18446744073709551615,"a":[9007199254740993,1.5,-3,2e3],"s":"12345678901234567890 \"99\"","c":0}`
	const want = `{"t":"18446744073709551615","a":["9007199254740993","1.5","-3","2e3"],"s":"12345678901234567890 \"99\"","c":"0"}`
	for _, fallback := range []bool{false, true} {
		got := eval[string](t, ctx, fmt.Sprintf(`clefs.parseExact(%s, %v)`, js(text), fallback))
		if got != want {
			t.Errorf("parseExact (fallback %v): %s, want %s", fallback, got, want)
		}
	}
}
