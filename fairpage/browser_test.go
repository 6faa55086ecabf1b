package fairpage_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"math/bits"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/lesclefsdutresor/clefs/cli"
	"github.com/lesclefsdutresor/clefs/fairpage"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/browsertest"
)

// This file drives the page in headless Chromium and compares everything it
// computes with package game: the vectors of docs/FAIRNESS.md section 6,
// random tickets and chests, an export and its tampered copies, bad input,
// the visible form. The expected values come from Go, but for the stream
// vectors, which come from the table game is held to.

const specPath = "../docs/FAIRNESS.md"

// browser starts headless Chromium with French as its language, as a
// French player's (the page speaks French to it).
func browser(t *testing.T) context.Context {
	return browsertest.New(t, "the verification page", "fr-FR,fr", 2*time.Minute)
}

// open loads url and waits for the page's API.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(960, 900), chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	ok, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.clefs && window.clefs.ready`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil || !ok {
		t.Fatalf("%s: window.clefs never ready: %v", url, err)
	}
}

// do runs actions in the page, failing the test on an error.
func do(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval runs expr (a promise) in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %.200s: %v", expr, err)
	}
	return v
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// pageTicket is what window.clefs.ticket gives.
type pageTicket struct {
	OK    bool   `json:"ok"`
	Field string `json:"field"`
	Error string `json:"error"`
	Cli   string `json:"cli"`
	Tier  string `json:"tier"`
	Key   bool   `json:"key"`
	Grid  string `json:"grid"`
	Row   int    `json:"row"`
	Prize int64  `json:"prize"`
	U     string `json:"u"`
	X     string `json:"x"`
	V0    string `json:"v0"`
	Read  int    `json:"read"`
}

type pageChest struct {
	OK    bool   `json:"ok"`
	Field string `json:"field"`
	Error string `json:"error"`
	Lot   string `json:"lot"`
	Prize int64  `json:"prize"`
	U     string `json:"u"`
	V0    string `json:"v0"`
}

type ticketIn struct {
	seed   game.Seed
	client string
	nonce  uint64
	keys   int
}

func (in ticketIn) String() string {
	return fmt.Sprintf("ticket %d (seed %x…, client %q, %d keys)", in.nonce, in.seed[:4], in.client, in.keys)
}

type chestIn struct {
	seed   game.Seed
	client string
	n      uint64
}

// goTicket is the ticket as package game draws it, in the page's terms,
// with the first value of its stream and its two uniform values, which
// game's outcome does not carry, from stream.
func goTicket(t *testing.T, in ticketIn) pageTicket {
	t.Helper()
	o, err := game.SeededDrawer{}.Ticket(in.seed, in.client, in.nonce, in.keys)
	if err != nil {
		t.Fatalf("%v: %v", in, err)
	}
	s := newStream(in.seed, game.PurposeTicket, in.client, in.nonce)
	u := s.uniform(uint64(game.Pool))
	x := s.uniform(gridRange(o))
	return pageTicket{OK: true, Tier: o.Tier.String(), Key: o.Key, Grid: o.Grid.String(), Row: int(o.Row), Prize: o.Prize,
		U: strconv.FormatUint(u, 10), X: strconv.FormatUint(x, 10), V0: fmt.Sprintf("%016x", s.first)}
}

func goChest(t *testing.T, in chestIn) pageChest {
	t.Helper()
	c, err := game.SeededDrawer{}.ChestNumber(in.seed, in.client, in.n)
	if err != nil {
		t.Fatalf("chest %d: %v", in.n, err)
	}
	s := newStream(in.seed, game.PurposeChest, in.client, in.n)
	u := s.uniform(uint64(game.ChestTotal))
	return pageChest{OK: true, Lot: c.Lot.String(), Prize: c.Prize, U: strconv.FormatUint(u, 10), V0: fmt.Sprintf("%016x", s.first)}
}

// gridRange is the range of x for a ticket's result (FAIRNESS.md 4.2).
func gridRange(o game.Outcome) uint64 {
	switch {
	case o.Tier.Winning():
		return 3 * 210 * 210
	case o.Key:
		return 9 * 36 * 210 * 210
	}
	return 210 * 210 * 210
}

// stream is a draw's stream as FAIRNESS.md section 2 lays it out, made
// here with crypto/hmac, for the values game keeps to itself (game's
// TestFairnessVectors holds its own stream to the same vectors).
type stream struct {
	mac        hash.Hash
	msg, block []byte
	n          uint32 // values read
	first      uint64
}

func newStream(seed game.Seed, purpose game.Purpose, client string, nonce uint64) *stream {
	msg := append([]byte{byte(len(purpose))}, purpose...)
	msg = append(binary.BigEndian.AppendUint32(msg, uint32(len(client))), client...)
	msg = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(msg, nonce), 0)
	return &stream{mac: hmac.New(sha256.New, seed[:]), msg: msg}
}

func (s *stream) next() uint64 {
	if s.n%4 == 0 {
		binary.BigEndian.PutUint32(s.msg[len(s.msg)-4:], s.n/4)
		s.mac.Reset()
		s.mac.Write(s.msg)
		s.block = s.mac.Sum(s.block[:0])
	}
	v := binary.BigEndian.Uint64(s.block[8*(s.n%4):])
	if s.n++; s.n == 1 {
		s.first = v
	}
	return v
}

// uniform is section 3: a value in [0, n), rejected at most 64 times.
func (s *stream) uniform(n uint64) uint64 {
	hi, lo := bits.Mul64(s.next(), n)
	for i := 0; lo < -n%n && i < 64; i++ {
		hi, lo = bits.Mul64(s.next(), n)
	}
	return hi
}

// pageTickets draws ins in the page, in one evaluation.
func pageTickets(t *testing.T, ctx context.Context, ins []ticketIn) []pageTicket {
	t.Helper()
	args := make([][]any, len(ins))
	for i, in := range ins {
		args[i] = []any{hex.EncodeToString(in.seed[:]), in.client, strconv.FormatUint(in.nonce, 10), in.keys}
	}
	return eval[[]pageTicket](t, ctx, `Promise.all(`+js(args)+`.map(a => clefs.ticket(...a)))`)
}

func pageChests(t *testing.T, ctx context.Context, ins []chestIn) []pageChest {
	t.Helper()
	args := make([][]any, len(ins))
	for i, in := range ins {
		args[i] = []any{hex.EncodeToString(in.seed[:]), in.client, strconv.FormatUint(in.n, 10)}
	}
	return eval[[]pageChest](t, ctx, `Promise.all(`+js(args)+`.map(a => clefs.chest(...a)))`)
}

func compareTickets(t *testing.T, ctx context.Context, ins []ticketIn) {
	t.Helper()
	got := pageTickets(t, ctx, ins)
	if len(got) != len(ins) {
		t.Fatalf("%d tickets from the page, want %d", len(got), len(ins))
	}
	bad := 0
	for i, in := range ins {
		if want := goTicket(t, in); got[i] != want {
			if bad++; bad <= 5 {
				t.Errorf("%v: page %+v, game %+v", in, got[i], want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d tickets differ", bad, len(ins))
	}
}

func compareChests(t *testing.T, ctx context.Context, ins []chestIn) {
	t.Helper()
	got := pageChests(t, ctx, ins)
	if len(got) != len(ins) {
		t.Fatalf("%d chests from the page, want %d", len(got), len(ins))
	}
	for i, in := range ins {
		if want := goChest(t, in); got[i] != want {
			t.Errorf("chest %d (seed %x…, client %q): page %+v, game %+v", in.n, in.seed[:4], in.client, got[i], want)
		}
	}
}

// ---- docs/FAIRNESS.md section 6, read as game/fairspec_test.go reads it ----

// mdTable returns the body rows of the one table of doc whose header is header.
func mdTable(t *testing.T, doc, header string) [][]string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	var rows [][]string
	found := 0
	for i, l := range lines {
		if strings.TrimSpace(l) != header {
			continue
		}
		found++
		for j := i + 2; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			rows = append(rows, splitRow(lines[j]))
		}
	}
	if found != 1 || len(rows) == 0 {
		t.Fatalf("%s: %d tables with the header %q (want one, not empty)", specPath, found, header)
	}
	return rows
}

func splitRow(line string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func specSeed(t *testing.T, s string) game.Seed {
	t.Helper()
	seed, err := game.ParseSeed(s)
	if err != nil {
		t.Fatalf("%s: seed %q: %v", specPath, s, err)
	}
	return seed
}

func specClient(t *testing.T, s string) string {
	t.Helper()
	var c string
	if !strings.HasPrefix(s, "`") || json.Unmarshal([]byte(strings.Trim(s, "`")), &c) != nil {
		t.Fatalf("%s: client seed %q is not a JSON string between backticks", specPath, s)
	}
	return c
}

func specNum(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatalf("%s: number %q: %v", specPath, s, err)
	}
	return v
}

const (
	hdrCommitments = "| server seed | commitment |"
	hdrTickets     = "| server seed | client seed | nonce | keys held | v0 | u | x | tier | key | grid | row |"
	hdrStream      = "| stream (values, hexadecimal) | keys held | u | x | tier | key | grid | row |"
	hdrChests      = "| server seed | client seed | chest | v0 | u | lot | prize (cents) |"
	hdrRefused     = "| server seed | client seed | draw | refused because |"
)

func testVectors(t *testing.T, ctx context.Context) {
	raw, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)

	for _, c := range mdTable(t, doc, hdrCommitments) {
		seed := specSeed(t, c[0])
		got := eval[map[string]any](t, ctx, `clefs.commitment(`+js(c[0])+`, `+js(c[1])+`)`)
		if want := seed.Commitment().String(); got["commitment"] != want || got["short"] != want[:8] || got["match"] != "full" {
			t.Errorf("commitment of %s: page %v, game %s", c[0], got, want)
		}
	}

	var tickets []ticketIn
	for _, c := range mdTable(t, doc, hdrTickets) {
		in := ticketIn{seed: specSeed(t, c[0]), client: specClient(t, c[1]), nonce: specNum(t, c[2]), keys: int(specNum(t, c[3]))}
		// Go is the reference; the table only proves the inputs are the spec's.
		if want := goTicket(t, in); want.Grid != c[9] || want.U != strings.ReplaceAll(c[5], ",", "") {
			t.Fatalf("%v: game gives %+v, the table says %q (game/fairspec_test.go should fail too)", in, want, c)
		}
		tickets = append(tickets, in)
	}
	compareTickets(t, ctx, tickets)

	var chests []chestIn
	for _, c := range mdTable(t, doc, hdrChests) {
		chests = append(chests, chestIn{seed: specSeed(t, c[0]), client: specClient(t, c[1]), n: specNum(t, c[2])})
	}
	compareChests(t, ctx, chests)

	for _, c := range mdTable(t, doc, hdrRefused) {
		kind, n, _ := strings.Cut(c[2], " ")
		expr := fmt.Sprintf(`clefs.chest(%s, %s, %s)`, js(c[0]), js(specClient(t, c[1])), js(n))
		if kind == "ticket" {
			expr = fmt.Sprintf(`clefs.ticket(%s, %s, %s, 0)`, js(c[0]), js(specClient(t, c[1])), js(n))
		}
		if got := eval[pageTicket](t, ctx, expr); got.OK {
			t.Errorf("%q: the page accepts it; the specification says it is refused: %s", c, c[3])
		}
	}

	// The stream vectors, held to the table: game's TestStreamVectors holds
	// game's draw to it (every value read, the same u, x and grid).
	for _, c := range mdTable(t, doc, hdrStream) {
		vals := strings.Fields(c[0])
		keys := int(specNum(t, c[1]))
		row := -1
		if c[7] != "-" {
			row = int(specNum(t, c[7]))
		}
		got := eval[pageTicket](t, ctx, `clefs.ticketFromStream(`+js(vals)+`, `+strconv.Itoa(keys)+`)`)
		if got.Grid != c[6] || got.Tier != c[4] || got.Key != (c[5] == "yes") || got.Row != row || got.Read != len(vals) ||
			got.U != strconv.FormatUint(specNum(t, c[2]), 10) || got.X != strconv.FormatUint(specNum(t, c[3]), 10) {
			t.Errorf("stream %s, %d keys: page %+v; the specification says %q", c[0], keys, got, c[2:])
		}
	}
}

// ---- random draws ----

// clientRunes mixes ASCII, accents, CJK, emoji (with U+FE0F) and combining
// marks: every one allowed in a client seed.
var clientRunes = []rune("abcdefXYZ0123456789 -_.!?éèçàÉœßñ中文字🔑🗝️💎\u0301\u0308Ωж")

func randomClient(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return "" // old records
	case 1:
		var b [8]byte
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return hex.EncodeToString(b[:]) // the default
	}
	for {
		var sb strings.Builder
		n := 1 + r.IntN(30)
		for range n {
			sb.WriteRune(clientRunes[r.IntN(len(clientRunes))])
		}
		s := sb.String()
		for len(s) > game.MaxClientSeed {
			_, size := utf8.DecodeLastRuneInString(s)
			s = s[:len(s)-size]
		}
		if game.ValidateClientSeed(s) == nil {
			return s
		}
	}
}

func randomSeed(r *rand.Rand) game.Seed {
	var s game.Seed
	for s == (game.Seed{}) {
		for i := range s {
			s[i] = byte(r.Uint32())
		}
	}
	return s
}

func randomNonce(r *rand.Rand) uint64 {
	switch r.IntN(5) {
	case 0:
		return 1 + r.Uint64N(1000)
	case 1:
		return math.MaxUint64 - r.Uint64N(1000) // near 2^64 − 1
	case 2:
		return 1<<53 - 500 + r.Uint64N(1000) // around 2^53, where doubles stop
	case 3:
		return 1 + r.Uint64N(game.MaxSeq)
	}
	return max(r.Uint64(), 1)
}

func testRandom(t *testing.T, ctx context.Context) {
	r := rand.New(rand.NewPCG(23, 4))
	var tickets []ticketIn
	for range 1000 {
		tickets = append(tickets, ticketIn{seed: randomSeed(r), client: randomClient(r), nonce: randomNonce(r), keys: r.IntN(game.MaxKeys)})
	}
	for i := 0; i < len(tickets); i += 250 {
		compareTickets(t, ctx, tickets[i:i+250])
	}
	var chests []chestIn
	for range 200 {
		chests = append(chests, chestIn{seed: randomSeed(r), client: randomClient(r), n: randomNonce(r)})
	}
	compareChests(t, ctx, chests)
}

// ---- bad input ----

func testBadInput(t *testing.T, ctx context.Context) {
	const seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	// Each names its field in the page's words (French here), and says
	// what clefs verify says of the same input.
	for _, c := range []struct {
		expr, field, words string
		args               []string // clefs verify's, after -server-seed
	}{
		{`clefs.ticket("` + seed[:63] + `", "a", "1", 0)`, "server-seed", "graine serveur", []string{seed[:63], "-client-seed", "a", "-nonce", "1"}},
		{`clefs.ticket("zz0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "a", "1", 0)`, "server-seed", "graine serveur", nil},
		{`clefs.ticket("` + strings.Repeat("0", 64) + `", "a", "1", 0)`, "server-seed", "graine zéro", []string{strings.Repeat("0", 64), "-client-seed", "a", "-nonce", "1"}},
		{`clefs.commitment("` + seed + `", "630dcd2966")`, "commitment", "engagement", []string{seed, "-client-seed", "a", "-nonce", "1", "-commitment", "630dcd2966"}},
		{`clefs.ticket("` + seed + `", "a", "18446744073709551616", 0)`, "nonce", "numéro du ticket", []string{seed, "-client-seed", "a", "-nonce", "18446744073709551616"}},
		{`clefs.ticket("` + seed + `", "a", "0", 0)`, "nonce", "numéro du ticket", []string{seed, "-client-seed", "a", "-nonce", "0"}},
		{`clefs.ticket("` + seed + `", "a", "x1", 0)`, "", "", []string{seed, "-client-seed", "a", "-nonce", "x1"}},
		{`clefs.ticket("` + seed + `", "a", "1", 3)`, "keys", "clefs détenues", []string{seed, "-client-seed", "a", "-nonce", "1", "-keys", "3"}},
		{`clefs.ticket("` + seed + `", "a", "1", "-1")`, "", "", []string{seed, "-client-seed", "a", "-nonce", "1", "-keys", "-1"}},
		{`clefs.chest("` + seed + `", "a", "18446744073709551616")`, "chest", "numéro du coffre", nil},
		{`clefs.chest("` + seed + `", "a", "0")`, "", "", []string{seed, "-client-seed", "a", "-chest", "0"}},
		{`clefs.ticket("` + seed + `", "a\u0007", "1", 0)`, "client-seed", "graine client", []string{seed, "-client-seed", "a\u0007", "-nonce", "1"}},
		{`clefs.ticket("` + seed + `", "` + strings.Repeat("é", 33) + `", "1", 0)`, "client-seed", "66 octets", []string{seed, "-client-seed", strings.Repeat("é", 33), "-nonce", "1"}},
	} {
		got := eval[pageTicket](t, ctx, c.expr)
		if got.OK || c.field != "" && (got.Field != c.field || !strings.Contains(got.Error, c.words)) {
			t.Errorf("%s: page %+v, want an error on %s saying %q", c.expr, got, c.field, c.words)
		}
		if c.args == nil {
			continue
		}
		if want := clefsVerify(t, "", append([]string{"-server-seed"}, c.args...)...); want == "" || got.Cli != want || !strings.Contains(got.Error, want) {
			t.Errorf("%s: the page says %q (%q), clefs verify %q", c.expr, got.Cli, got.Error, want)
		}
	}
	// Numbers in the grammar clefs verify reads (cli/testdata/numbers.txt):
	// each accepted alike, or refused in the same words, as a ticket, a
	// chest or keys.
	b, err := os.ReadFile("../cli/testdata/numbers.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		q, value, _ := strings.Cut(line, "\t")
		in, err := strconv.Unquote(q)
		if strings.HasPrefix(line, "#") || err != nil {
			continue
		}
		for _, c := range []struct{ expr, flag string }{{`clefs.ticket(%q, "a", %s, 0)`, "-nonce"}, {`clefs.chest(%q, "a", %s)`, "-chest"}, {`clefs.ticket(%q, "a", "1", %s)`, "-keys"}} {
			want := clefsVerify(t, "", "-server-seed", seed, "-client-seed", "a", "-nonce", "1", c.flag, in)
			got := eval[struct {
				OK                bool
				Cli, Nonce, Chest string
				Keys              int
			}](t, ctx, fmt.Sprintf(c.expr, seed, js(in)))
			echo := map[string]string{"-nonce": got.Nonce, "-chest": got.Chest, "-keys": fmt.Sprint(got.Keys)}[c.flag]
			if got.OK != (want == "") || got.Cli != want || value == "refused" && (got.OK || !strings.HasPrefix(want, "invalid value ")) || got.OK && echo != value {
				t.Errorf("%s %q (%s): the page %+v, clefs verify %q", c.flag, in, value, got, want)
			}
		}
	}

	// A client seed chosen before the rule on invisible characters draws,
	// with the warning clefs verify gives.
	var out, errOut bytes.Buffer
	if err := cli.Main(context.Background(), []string{"verify", "-server-seed", seed, "-client-seed", "a\u200bb", "-nonce", "1"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	got := eval[struct {
		OK         bool
		WarningCli string
	}](t, ctx, `clefs.ticket("`+seed+`", "a\u200bb", "1", 0)`)
	if !got.OK || got.WarningCli == "" || !strings.Contains(out.String(), "warning: "+got.WarningCli+"\n") {
		t.Errorf("a legacy client seed: the page %+v, clefs verify:\n%s", got, out.String())
	}

	// 2^64 − 1 is a ticket number; the 8 digits of a card are a commitment.
	if got := eval[pageTicket](t, ctx, `clefs.ticket("`+seed+`", "a", "18446744073709551615", 2)`); !got.OK {
		t.Errorf("ticket 2^64 − 1: %+v", got)
	}
	if got := eval[map[string]any](t, ctx, `clefs.commitment("`+seed+`", "630DCD29")`); got["match"] != "short" {
		t.Errorf("the card's 8 digits: %v, want a short match", got)
	}
	if got := eval[map[string]any](t, ctx, `clefs.commitment("`+seed+`", "`+strings.Repeat("a", 64)+`")`); got["match"] != "no" {
		t.Errorf("another commitment: %v, want no match", got)
	}
}

// ---- the visible page ----

func testForm(t *testing.T, ctx context.Context) {
	in := ticketIn{seed: specSeed(t, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"), client: "3f9a0c1d2e4b5a69", nonce: 2, keys: 1}
	want := goTicket(t, in) // a barrel on row 2
	seedHex := hex.EncodeToString(in.seed[:])
	do(t, ctx,
		chromedp.SetValue("#t-seed", seedHex), chromedp.SetValue("#t-client", in.client),
		chromedp.SetValue("#t-nonce", "2"), chromedp.SetValue("#t-keys", "1"), chromedp.SetValue("#t-chest", "1"),
		chromedp.Click("#t-go"), chromedp.WaitVisible("#t-result .board"),
	)
	text := eval[string](t, ctx, `document.getElementById('t-result').innerText`)
	grid := eval[string](t, ctx, `document.getElementById('t-result').dataset.grid`)
	chest := goChest(t, chestIn{seed: in.seed, client: in.client, n: 1})
	for _, w := range []string{"Ticket n° 2", "Trois tonneaux sur la ligne " + strconv.Itoa(want.Row+1), want.Grid, "Coffre n° 1", "une pièce d'argent",
		in.seed.Commitment().String()} {
		if !strings.Contains(text, w) {
			t.Errorf("the ticket's result does not say %q:\n%s", w, text)
		}
	}
	if grid != want.Grid || chest.Lot != "silver" {
		t.Errorf("the page shows grid %s, game draws %s (chest %s)", grid, want.Grid, chest.Lot)
	}
	// Each cell shows its symbol's picture: package art's, the application's emoji.
	cells, err := game.ParseGrid(want.Grid)
	if err != nil {
		t.Fatal(err)
	}
	srcs := eval[[]string](t, ctx, `[...document.querySelectorAll('#t-result .board td img')].map(i => i.src)`)
	if len(srcs) != len(cells) {
		t.Fatalf("%d pictures in the grid, want %d", len(srcs), len(cells))
	}
	for i, s := range cells {
		if srcs[i] != artURI(t, s) {
			t.Errorf("cell %d shows %.60s…, not package art's %v", i+1, srcs[i], s)
		}
	}

	// Bad input: an error naming the field, nothing else changed.
	do(t, ctx, chromedp.SetValue("#t-seed", seedHex[:63]), chromedp.Click("#t-go"), chromedp.WaitVisible("#t-error"))
	msg := eval[string](t, ctx, `document.getElementById('t-error').innerText`)
	after := eval[string](t, ctx, `document.getElementById('t-result').innerText`)
	if !strings.Contains(msg, "graine serveur") || !strings.Contains(msg, "63") || after != text {
		t.Errorf("a 63-digit seed: error %q, and the result changed: %v", msg, after != text)
	}
	do(t, ctx, chromedp.SetValue("#t-seed", seedHex), chromedp.SetValue("#t-keys", "3"), chromedp.Click("#t-go"))
	if msg := eval[string](t, ctx, `document.getElementById('t-error').innerText`); !strings.Contains(msg, "clefs détenues") {
		t.Errorf("keys 3: error %q", msg)
	}
	do(t, ctx, chromedp.SetValue("#t-keys", "1"), chromedp.Click("#t-go"), chromedp.WaitNotVisible("#t-error"))

	// The commitment form.
	do(t, ctx, chromedp.SetValue("#c-seed", seedHex), chromedp.SetValue("#c-commit", in.seed.Commitment().Short()),
		chromedp.Click("#c-go"), chromedp.WaitVisible("#c-result .verdict"))
	if m := eval[string](t, ctx, `document.getElementById('c-result').dataset.match`); m != "short" {
		t.Errorf("the card's 8 digits: %q, want short", m)
	}
	do(t, ctx, chromedp.SetValue("#c-commit", "630dcd2966"), chromedp.Click("#c-go"), chromedp.WaitVisible("#c-error"))
	if msg := eval[string](t, ctx, `document.getElementById('c-error').innerText`); !strings.Contains(msg, "engagement") || !strings.Contains(msg, "10") {
		t.Errorf("a 10-digit commitment: error %q", msg)
	}
	if res := eval[string](t, ctx, `document.getElementById('t-result').innerText`); res != text {
		t.Error("an error in the commitment form changed the ticket's result")
	}
	do(t, ctx, chromedp.SetValue("#c-commit", in.seed.Commitment().String()), chromedp.Click("#c-go"), chromedp.WaitNotVisible("#c-error"))
}

// testLanguage checks that the page speaks the browser's language (French
// here) and that FR / EN switch every text, results and errors included,
// without reloading; then that a browser set to another language gets
// the page in the first of French and English it lists, English otherwise.
func testLanguage(t *testing.T, ctx context.Context, url string) {
	type state struct {
		Lang, Title, H1, Placeholder, Ticket, Error, Export string
		Pictures                                            []string
	}
	read := func() state {
		return eval[state](t, ctx, `({lang: document.documentElement.lang, title: document.title,
			h1: document.querySelector('h1').innerText, placeholder: document.getElementById('t-seed').placeholder,
			ticket: document.getElementById('t-result').innerText, error: document.getElementById('t-error').innerText,
			export: document.getElementById('x-result').innerText,
			pictures: [...document.querySelectorAll('#t-result img')].map(i => i.src)})`)
	}
	// A ticket (from testForm) and an error on the keys held.
	do(t, ctx, chromedp.SetValue("#t-keys", "3"), chromedp.Click("#t-go"), chromedp.WaitVisible("#t-error"))
	const cliKeys = "-keys 3: a player holds 0 to 2 keys before a ticket"
	fr := read()
	if fr.Lang != "fr" || fr.Title != "Les Clefs du Trésor — vérifier un tirage" || !strings.Contains(fr.H1, "vérifier un tirage") ||
		fr.Placeholder != "64 chiffres hexadécimaux" || !strings.Contains(fr.Ticket, "Trois tonneaux sur la ligne") ||
		!strings.Contains(fr.Error, "clefs détenues : ") || !strings.Contains(fr.Error, cliKeys) || !strings.Contains(fr.Export, "ROMPU") ||
		!strings.Contains(fr.Ticket, "trois tonneaux, ") || !strings.Contains(fr.Ticket, "(lot : une pièce d'argent)") || strings.Contains(fr.Ticket, "barrel") || strings.Contains(fr.Ticket, "silver") {
		t.Errorf("a French browser: the page is not in French: %+v", fr)
	}
	do(t, ctx, chromedp.Click(`[data-lang="en"]`))
	en := read()
	for _, w := range []string{"Ticket #2, result: three barrels on row", "Chest #1: one silver coin, 1.00 credits", "keys before"} {
		if !strings.Contains(en.Ticket, w) {
			t.Errorf("in English, the ticket's result does not say %q:\n%s", w, en.Ticket)
		}
	}
	if en.Lang != "en" || en.Title != "Les Clefs du Trésor — verify a draw" || !strings.Contains(en.H1, "verify a draw") || strings.Contains(en.H1, "vérifier") ||
		en.Placeholder != "64 hexadecimal digits" || strings.Contains(en.Ticket, "tonneau") || !slices.Equal(en.Pictures, fr.Pictures) ||
		!strings.HasPrefix(en.Error, "keys held: ") || !strings.Contains(en.Error, cliKeys) ||
		!strings.Contains(en.Export, "Broken: ") || !strings.Contains(en.Export, "BROKEN guild ") || strings.Contains(en.Export, "ROMPU") {
		t.Errorf("after EN: %+v", en)
	}
	// No French left: no accent but in the game's name, no colon after a space.
	all := strings.ReplaceAll(eval[string](t, ctx, `document.body.innerText`), "Les Clefs du Trésor", "")
	if i := strings.IndexAny(all, "éèêàçôû«»"); i >= 0 || strings.Contains(all, " : ") {
		t.Errorf("in English, the page still holds French (at %d):\n%s", i, all)
	}
	if p := eval[string](t, ctx, `document.querySelector('[data-lang="en"]').getAttribute('aria-pressed')`); p != "true" {
		t.Errorf("EN pressed: aria-pressed %q", p)
	}
	do(t, ctx, chromedp.Click(`[data-lang="fr"]`))
	if back := read(); !reflect.DeepEqual(back, fr) {
		t.Errorf("back to FR: %+v, want %+v", back, fr)
	}
	do(t, ctx, chromedp.SetValue("#t-keys", "1"), chromedp.Click("#t-go"), chromedp.WaitNotVisible("#t-error"))

	for _, c := range []struct{ languages, want string }{{"en-GB,en", "en"}, {"de-DE,de,fr-CH,en", "fr"}, {"de-DE,de", "en"}} {
		tab, cancel := chromedp.NewContext(ctx)
		err := chromedp.Do(tab, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: "clefs test", AcceptLanguage: c.languages})
			return chromedp.Void{}, err
		})
		if err != nil {
			t.Fatal(err)
		}
		open(t, tab, url)
		got := eval[pageTicket](t, tab, `clefs.ticket("abc", "a", "1", 0)`)
		lang := eval[string](t, tab, `document.documentElement.lang`)
		if wantError := map[string]string{"en": "server seed: want 64", "fr": "graine serveur : 64"}[c.want]; lang != c.want || !strings.HasPrefix(got.Error, wantError) {
			t.Errorf("a browser in %s: the page is in %q, says %q; want %s", c.languages, lang, got.Error, c.want)
		}
		cancel()
	}
}

// TestBrowser runs the page in headless Chromium, served over loopback
// (a secure context: WebCrypto) and from a file.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	srv := httptest.NewServer(fairpage.Handler())
	defer srv.Close()
	start := time.Now()
	open(t, ctx, srv.URL)
	t.Run("vectors", func(t *testing.T) { testVectors(t, ctx) })
	t.Run("random", func(t *testing.T) { testRandom(t, ctx) })
	t.Run("bad input", func(t *testing.T) { testBadInput(t, ctx) })
	t.Run("exact JSON", func(t *testing.T) { testExactJSON(t, ctx) })
	t.Run("export", func(t *testing.T) { testExport(t, ctx) })
	t.Run("long exports", func(t *testing.T) { testLongExports(t, ctx) })
	t.Run("form", func(t *testing.T) { testForm(t, ctx) })
	t.Run("language", func(t *testing.T) { testLanguage(t, ctx, srv.URL) })
	if os.Getenv("CLEFS_UPDATE_SCREENSHOT") == "1" {
		screenshot(t, ctx)
	}
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "fair.html")
		if err := os.WriteFile(path, fairpage.HTML(), 0o600); err != nil {
			t.Fatal(err)
		}
		open(t, ctx, "file://"+path)
		compareTickets(t, ctx, []ticketIn{{seed: specSeed(t, "000c11dcb88b7d402baf018cd063d7b3341ff39eea683226e6ac03fe094653dc"), client: "Trésor 🔑 clé", nonce: 7, keys: 1}})
	})
	t.Logf("the browser checks took %v", time.Since(start).Round(time.Millisecond))
}

// screenshot writes docs/fair-page.png: the top of the page, a verified
// ticket (and its chest) and a commitment checked.
func screenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	const width = 820
	do(t, ctx, chromedp.EmulateViewport(width, 800))
	height := eval[float64](t, ctx, `window.scrollTo(0, 0); document.getElementById('sec-commit').getBoundingClientRect().bottom + 16`)
	do(t, ctx, chromedp.EmulateViewport(width, int64(height)))
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("../docs/fair-page.png", buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote docs/fair-page.png (%d bytes)", len(buf))
}
