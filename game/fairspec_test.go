package game_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/game"
)

// specPath is docs/FAIRNESS.md seen from the package directory, go test's
// working directory.
const specPath = "../docs/FAIRNESS.md"

// The headers of the tables of FAIRNESS.md that the tests read. A table is
// found by its header line, so renaming a column here and in the document
// go together.
const (
	hdrCommitments = "| server seed | commitment |"
	hdrTickets     = "| server seed | client seed | nonce | keys held | v0 | u | x | tier | key | grid | row |"
	hdrChests      = "| server seed | client seed | chest | v0 | u | lot | prize (cents) |"
	hdrSymbols     = "| number | letter | symbol |"
	hdrTiers       = "| tier | letter | prize (cents) | weight (of 100,000,000) | pool values | first value | last value |"
	hdrKeys        = "| keys held | key values | loss with a key | loss without a key | chance of a key per ticket |"
	hdrLots        = "| lot | coins | prize (cents) | weight (of 250,000) | first value | last value |"
	hdrStream      = "| stream (values, hexadecimal) | keys held | u | x | tier | key | grid | row |"
	hdrRefused     = "| server seed | client seed | draw | refused because |"
)

func readSpec(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile(specPath)
	if err != nil {
		tb.Fatalf("the specification: %v", err)
	}
	return string(b)
}

// mdTable returns the cells of the body rows of the one markdown table of doc
// whose header line is header.
func mdTable(tb testing.TB, doc, header string) [][]string {
	tb.Helper()
	lines := strings.Split(doc, "\n")
	var rows [][]string
	found := 0
	for i, l := range lines {
		if strings.TrimSpace(l) != header {
			continue
		}
		found++
		ncols := len(splitRow(header))
		// Skip the header and the |---| line; the table ends at the first
		// line that does not start with '|'.
		for j := i + 2; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			cells := splitRow(lines[j])
			if len(cells) != ncols {
				tb.Fatalf("%s line %d: %d cells, want %d: %q", specPath, j+1, len(cells), ncols, lines[j])
			}
			rows = append(rows, cells)
		}
	}
	if found != 1 || len(rows) == 0 {
		tb.Fatalf("%s: %d tables with the header %q (want one, not empty)", specPath, found, header)
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

// num reads an unsigned integer of the document, thousands separators allowed.
func num(tb testing.TB, s string) uint64 {
	tb.Helper()
	v, err := strconv.ParseUint(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		tb.Fatalf("%s: number %q: %v", specPath, s, err)
	}
	return v
}

func hexSeed(tb testing.TB, s string) game.Seed {
	tb.Helper()
	var seed game.Seed
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(seed) {
		tb.Fatalf("%s: server seed %q is not 64 hexadecimal digits", specPath, s)
	}
	copy(seed[:], b)
	return seed
}

// clientSeed reads a client seed written as a JSON string between backticks.
func clientSeed(tb testing.TB, s string) string {
	tb.Helper()
	var c string
	if !strings.HasPrefix(s, "`") || !strings.HasSuffix(s, "`") || json.Unmarshal([]byte(strings.Trim(s, "`")), &c) != nil {
		tb.Fatalf("%s: client seed %q is not a JSON string between backticks", specPath, s)
	}
	return c
}

type ticketVector struct {
	seed      game.Seed
	client    string
	nonce     uint64
	keys      int
	v0, u, x  uint64
	tier      string
	key       bool
	grid, row string
}

func (v ticketVector) String() string {
	return fmt.Sprintf("ticket %d (seed %x…, client %q, %d keys)", v.nonce, v.seed[:4], v.client, v.keys)
}

func ticketVectors(tb testing.TB, doc string) []ticketVector {
	tb.Helper()
	var vs []ticketVector
	for _, c := range mdTable(tb, doc, hdrTickets) {
		v := ticketVector{seed: hexSeed(tb, c[0]), client: clientSeed(tb, c[1]), nonce: num(tb, c[2]),
			keys: int(num(tb, c[3])), u: num(tb, c[5]), x: num(tb, c[6]), tier: c[7], grid: c[9], row: c[10]}
		v0, err := strconv.ParseUint(c[4], 16, 64)
		if err != nil || (c[8] != "yes" && c[8] != "no") {
			tb.Fatalf("%s: ticket vector %q: bad v0 or key", specPath, c)
		}
		v.v0, v.key = v0, c[8] == "yes"
		vs = append(vs, v)
	}
	return vs
}

type chestVector struct {
	seed   game.Seed
	client string
	seq    uint64
	v0, u  uint64
	lot    string
	prize  int64
}

func (v chestVector) String() string {
	return fmt.Sprintf("chest %d (seed %x…, client %q)", v.seq, v.seed[:4], v.client)
}

func chestVectors(tb testing.TB, doc string) []chestVector {
	tb.Helper()
	var vs []chestVector
	for _, c := range mdTable(tb, doc, hdrChests) {
		seq := num(tb, c[2])
		v0, err := strconv.ParseUint(c[3], 16, 64)
		if err != nil {
			tb.Fatalf("%s: chest vector %q: bad v0", specPath, c)
		}
		vs = append(vs, chestVector{seed: hexSeed(tb, c[0]), client: clientSeed(tb, c[1]), seq: seq,
			v0: v0, u: num(tb, c[4]), lot: c[5], prize: int64(num(tb, c[6]))})
	}
	return vs
}

func rowString(row int8) string {
	if row < 0 {
		return "-"
	}
	return strconv.Itoa(int(row))
}

// TestFairnessVectors checks the test vectors of FAIRNESS.md against the
// bot's draw: the commitments, every ticket (first stream value, the two
// uniform values, result, key, grid, winning row) and every chest.
func TestFairnessVectors(t *testing.T) {
	doc := readSpec(t)
	for _, c := range mdTable(t, doc, hdrCommitments) {
		seed := hexSeed(t, c[0])
		if got := sha256.Sum256(seed[:]); hex.EncodeToString(got[:]) != c[1] {
			t.Errorf("commitment of %s = %x, the specification says %s", c[0], got, c[1])
		}
	}

	tickets := ticketVectors(t, doc)
	if len(tickets) < 8 {
		t.Errorf("%d ticket vectors, want at least 8", len(tickets))
	}
	var d game.SeededDrawer
	for _, v := range tickets {
		o, err := d.Ticket(v.seed, v.client, v.nonce, v.keys)
		if err != nil {
			t.Errorf("%v: %v", v, err)
			continue
		}
		got := fmt.Sprintf("%v key=%v grid=%v row=%s", o.Tier, o.Key, o.Grid, rowString(o.Row))
		want := fmt.Sprintf("%s key=%v grid=%s row=%s", v.tier, v.key, v.grid, v.row)
		if got != want {
			t.Errorf("%v: the bot draws %s, the specification says %s", v, got, want)
		}
		// The stream and the two uniform values, as the specification
		// lists them to help whoever debugs an implementation.
		src := game.NewHMACSource(v.seed, game.PurposeTicket, v.client, v.nonce)
		first := game.NewHMACSource(v.seed, game.PurposeTicket, v.client, v.nonce)
		u := game.Uniform(src, game.Pool)
		x := game.Uniform(src, gridRange(o.Tier.Winning(), o.Key))
		if v0 := first.Uint64(); v0 != v.v0 || uint64(u) != v.u || uint64(x) != v.x {
			t.Errorf("%v: v0 %016x u %d x %d, the specification says v0 %016x u %d x %d", v, v0, u, x, v.v0, v.u, v.x)
		}
	}

	chests := chestVectors(t, doc)
	if len(chests) < 3 {
		t.Errorf("%d chest vectors, want at least 3", len(chests))
	}
	for _, v := range chests {
		c, err := d.ChestNumber(v.seed, v.client, v.seq)
		if err != nil {
			t.Errorf("%v: %v", v, err)
			continue
		}
		if v.seq <= game.MaxSeq {
			if c2, err := d.Chest(v.seed, v.client, int64(v.seq)); err != nil || c2 != c {
				t.Errorf("%v: Chest gives %v, %v; ChestNumber %v", v, c2, err, c)
			}
		}
		if c.Lot.String() != v.lot || c.Prize != v.prize {
			t.Errorf("%v: the bot draws %v (%d cents), the specification says %s (%d cents)", v, c.Lot, c.Prize, v.lot, v.prize)
		}
		src := game.NewHMACSource(v.seed, game.PurposeChest, v.client, v.seq)
		first := game.NewHMACSource(v.seed, game.PurposeChest, v.client, v.seq)
		if v0, u := first.Uint64(), game.Uniform(src, game.ChestTotal); v0 != v.v0 || uint64(u) != v.u {
			t.Errorf("%v: v0 %016x u %d, the specification says v0 %016x u %d", v, v0, u, v.v0, v.u)
		}
	}
}

// TestRefusedVectors: game refuses every input of the specification's
// table of refused inputs, as a verifier must: the server seed
// (ParseSeed), the client seed (CheckStoredClientSeed) or the draw's
// number (SeededDrawer).
func TestRefusedVectors(t *testing.T) {
	rows := mdTable(t, readSpec(t), hdrRefused)
	if len(rows) < 6 {
		t.Fatalf("%d refused inputs, want at least 6", len(rows))
	}
	for _, c := range rows {
		kind, n, _ := strings.Cut(c[2], " ")
		seed, err := game.ParseSeed(c[0])
		if err == nil {
			err = game.CheckStoredClientSeed(clientSeed(t, c[1]))
		}
		if err == nil {
			var nonce uint64
			if nonce, err = strconv.ParseUint(n, 10, 64); err == nil && kind == "ticket" {
				_, err = game.SeededDrawer{}.Ticket(seed, clientSeed(t, c[1]), nonce, 0)
			} else if err == nil {
				_, err = game.SeededDrawer{}.ChestNumber(seed, clientSeed(t, c[1]), nonce)
			}
		}
		if err == nil {
			t.Errorf("%q: game accepts it; the specification says it is refused: %s", c, c[3])
		}
	}
}

// gridRange is the range of the grid's uniform value, section 4.2.
func gridRange(win, key bool) int64 {
	switch {
	case win:
		return 3 * 210 * 210
	case key:
		return 9 * 36 * 210 * 210
	}
	return 210 * 210 * 210
}

// fakeStream is a Source that returns the given values, then zeros.
type fakeStream struct {
	vals []uint64
	read int
}

func (f *fakeStream) Uint64() uint64 {
	f.read++
	if f.read <= len(f.vals) {
		return f.vals[f.read-1]
	}
	return 0
}

// TestRejectionExample checks the micro-example of section 3 and the cap of
// 64 redraws, on the bot's uniform and on the reimplementation's.
func TestRejectionExample(t *testing.T) {
	tests := []struct {
		vals []uint64
		n    uint64
		want uint64
		read int
	}{
		{[]uint64{0xffffffffffffffff}, 6, 5, 1},
		{[]uint64{0x5555555555555556}, 6, 2, 1},
		{[]uint64{0x8000000000000000, 0xffffffffffffffff}, 6, 5, 2},
		{nil, 6, 0, 65}, // zeros forever: 64 redraws, then the last value is used
		{nil, 1_200_000_000, 0, 65},
	}
	for _, tt := range tests {
		bot := &fakeStream{vals: tt.vals}
		ref := &fakeStream{vals: tt.vals}
		got := game.Uniform(bot, int64(tt.n))
		gotRef := refUniform(ref.Uint64, tt.n)
		if uint64(got) != tt.want || bot.read != tt.read || gotRef != tt.want || ref.read != tt.read {
			t.Errorf("uniform(%x, %d): bot %d reading %d values, reimplementation %d reading %d; want %d reading %d",
				tt.vals, tt.n, got, bot.read, gotRef, ref.read, tt.want, tt.read)
		}
	}
}

// spec holds the tables of FAIRNESS.md, parsed from the document: the
// reimplementation below knows nothing of the game's Go tables.
type spec struct {
	letters   [7]byte // by symbol number; letters[6] is the key
	tiers     []specTier
	pool      uint64
	keyValues []uint64 // by keys held
	lots      []specLot
	chestPool uint64
}

type specTier struct {
	name   string
	letter byte
	prize  int64
	values uint64 // of the pool
}

type specLot struct {
	name   string
	prize  int64
	weight uint64
}

func parseSpec(tb testing.TB, doc string) *spec {
	tb.Helper()
	sp := new(spec)
	syms := mdTable(tb, doc, hdrSymbols)
	if len(syms) != len(sp.letters) {
		tb.Fatalf("%s: %d symbols, want %d", specPath, len(syms), len(sp.letters))
	}
	for i, c := range syms {
		if num(tb, c[0]) != uint64(i) || len(c[1]) != 1 {
			tb.Fatalf("%s: symbol row %q", specPath, c)
		}
		sp.letters[i] = c[1][0]
	}
	if syms[6][2] != "key" {
		tb.Fatalf("%s: symbol 6 is %q, want the key", specPath, syms[6][2])
	}

	// Tiers in pool order, the loss last; each range follows the previous.
	for _, c := range mdTable(tb, doc, hdrTiers) {
		w, values := num(tb, c[3]), num(tb, c[4])
		if values != 12*w || num(tb, c[5]) != sp.pool || num(tb, c[6]) != sp.pool+values-1 {
			tb.Fatalf("%s: tier row %q: values are not 12 × weight from %d on", specPath, c, sp.pool)
		}
		sp.pool += values
		if c[0] == "loss" {
			continue
		}
		if len(c[1]) != 1 || strings.IndexByte(string(sp.letters[:6]), c[1][0]) < 0 {
			tb.Fatalf("%s: tier row %q: letter not a non-key symbol", specPath, c)
		}
		sp.tiers = append(sp.tiers, specTier{name: c[0], letter: c[1][0], prize: int64(num(tb, c[2])), values: values})
	}
	for k, c := range mdTable(tb, doc, hdrKeys) {
		if num(tb, c[0]) != uint64(k) {
			tb.Fatalf("%s: key row %q out of order", specPath, c)
		}
		sp.keyValues = append(sp.keyValues, num(tb, c[1]))
	}
	for _, c := range mdTable(tb, doc, hdrLots) {
		w := num(tb, c[3])
		if num(tb, c[4]) != sp.chestPool || num(tb, c[5]) != sp.chestPool+w-1 {
			tb.Fatalf("%s: lot row %q: range does not follow from %d", specPath, c, sp.chestPool)
		}
		sp.lots = append(sp.lots, specLot{name: c[0], prize: int64(num(tb, c[2])), weight: w})
		sp.chestPool += w
	}
	return sp
}

// refStream is the stream of section 2, written from the specification
// with crypto/hmac alone.
type refStream struct {
	seed  []byte
	msg   []byte // the message; its last 4 bytes are the block counter
	block []byte
	k     uint32
}

func newRefStream(seed game.Seed, purpose, client string, nonce uint64) *refStream {
	msg := []byte{byte(len(purpose))}
	msg = append(msg, purpose...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(client)))
	msg = append(msg, client...)
	msg = binary.BigEndian.AppendUint64(msg, nonce)
	msg = append(msg, 0, 0, 0, 0)
	return &refStream{seed: seed[:], msg: msg}
}

func (s *refStream) next() uint64 {
	if len(s.block) == 0 {
		binary.BigEndian.PutUint32(s.msg[len(s.msg)-4:], s.k)
		s.k++
		mac := hmac.New(sha256.New, s.seed)
		mac.Write(s.msg)
		s.block = mac.Sum(nil)
	}
	v := binary.BigEndian.Uint64(s.block)
	s.block = s.block[8:]
	return v
}

// refUniform is section 3.
func refUniform(next func() uint64, n uint64) uint64 {
	hi, lo := bits.Mul64(next(), n)
	if lo < n {
		t := (math.MaxUint64 - n + 1) % n // 2^64 mod n
		for redraws := 0; lo < t && redraws < 64; redraws++ {
			hi, lo = bits.Mul64(next(), n)
		}
	}
	return hi
}

type refTicket struct {
	tier  string
	prize int64
	key   bool
	grid  string
	row   string
	u, x  uint64
}

// ticket is section 4.
func (sp *spec) ticket(seed game.Seed, client string, nonce uint64, keys int) refTicket {
	return sp.ticketFrom(newRefStream(seed, "ticket", client, nonce).next, keys)
}

// ticketFrom is section 4 over the stream next.
func (sp *spec) ticketFrom(next func() uint64, keys int) refTicket {
	u := refUniform(next, sp.pool)
	r := refTicket{tier: "loss", row: "-", u: u}
	win := -1
	var cum uint64
	for i, t := range sp.tiers {
		cum += t.values
		if u < cum {
			win = i
			r.tier, r.prize = t.name, t.prize
			break
		}
	}
	if win < 0 {
		r.key = u < cum+sp.keyValues[keys]
	}

	var g [9]byte
	freeRow := func(row int, i uint64) {
		v := i + i/42 + 1
		g[3*row], g[3*row+1], g[3*row+2] = sp.letters[v/36], sp.letters[v/6%6], sp.letters[v%6]
	}
	others := func(row int) (int, int) {
		switch row {
		case 0:
			return 1, 2
		case 1:
			return 0, 2
		}
		return 0, 1
	}
	switch {
	case win >= 0:
		r.x = refUniform(next, 3*44_100)
		row := int(r.x / 44_100)
		y := r.x % 44_100
		l := sp.tiers[win].letter
		g[3*row], g[3*row+1], g[3*row+2] = l, l, l
		a, b := others(row)
		freeRow(a, y/210)
		freeRow(b, y%210)
		r.row = strconv.Itoa(row)
	case r.key:
		r.x = refUniform(next, 9*36*44_100)
		cell := r.x / 1_587_600
		y := r.x % 1_587_600
		pair, z := y/44_100, y%44_100
		row, col := int(cell/3), int(cell%3)
		p := []byte{sp.letters[pair/6], sp.letters[pair%6]}
		for c := 0; c < 3; c++ {
			if c == col {
				g[3*row+c] = sp.letters[6]
			} else {
				g[3*row+c], p = p[0], p[1:]
			}
		}
		a, b := others(row)
		freeRow(a, z/210)
		freeRow(b, z%210)
	default:
		r.x = refUniform(next, 210*210*210)
		freeRow(0, r.x/44_100)
		y := r.x % 44_100
		freeRow(1, y/210)
		freeRow(2, y%210)
	}
	r.grid = string(g[:])
	return r
}

// chest is section 5.
func (sp *spec) chest(seed game.Seed, client string, seq uint64) (specLot, uint64) {
	s := newRefStream(seed, "chest", client, seq)
	u := refUniform(s.next, sp.chestPool)
	var cum uint64
	for _, l := range sp.lots {
		cum += l.weight
		if u < cum {
			return l, u
		}
	}
	panic("unreachable: u below the sum of the weights")
}

// TestIndependentReimplementation recomputes the draws from FAIRNESS.md
// alone (crypto/hmac, crypto/sha256, math/bits and the document's tables)
// and checks that they agree with the bot's SeededDrawer: first on the
// document's vectors, then on 100,000 tickets and 10,000 chests over several
// seeds, client seeds (empty, hexadecimal, non-ASCII, the longest), small
// and huge nonces and every number of keys held.
func TestIndependentReimplementation(t *testing.T) {
	doc := readSpec(t)
	sp := parseSpec(t, doc)

	for _, v := range ticketVectors(t, doc) {
		r := sp.ticket(v.seed, v.client, v.nonce, v.keys)
		if v0 := newRefStream(v.seed, "ticket", v.client, v.nonce).next(); v0 != v.v0 {
			t.Errorf("%v: reimplementation v0 %016x, vector %016x", v, v0, v.v0)
		}
		if r.u != v.u || r.x != v.x || r.tier != v.tier || r.key != v.key || r.grid != v.grid || r.row != v.row {
			t.Errorf("%v: reimplementation gives %+v; the vector says u:%d x:%d %s key=%v grid=%s row=%s",
				v, r, v.u, v.x, v.tier, v.key, v.grid, v.row)
		}
	}
	for _, v := range chestVectors(t, doc) {
		l, u := sp.chest(v.seed, v.client, v.seq)
		if u != v.u || l.name != v.lot || l.prize != v.prize {
			t.Errorf("%v: reimplementation gives %s (%d cents, u %d), vector %s (%d cents, u %d)", v, l.name, l.prize, u, v.lot, v.prize, v.u)
		}
	}

	const tickets, chests = 100_000, 10_000
	rng := rand.New(rand.NewPCG(1, 2))
	var seeds []game.Seed
	for i := 0; i < 5; i++ {
		seeds = append(seeds, sha256.Sum256([]byte("fairspec seed "+strconv.Itoa(i))))
	}
	clients := []string{"", "3f9a0c1d2e4b5a69", "Trésor 🔑 clé", strings.Repeat("é", 32), "x"}
	nonce := func(i int) uint64 {
		switch i % 4 {
		case 0, 1:
			return uint64(i/4 + 1) // 1, 2, 3, … as a player's tickets
		case 2:
			return math.MaxUint64 - uint64(i/4) // the top of the range
		}
		return rng.Uint64() | 1 // anywhere, never 0
	}
	var d game.SeededDrawer
	wins := 0
	for i := 0; i < tickets; i++ {
		seed, client, n, keys := seeds[i%len(seeds)], clients[i/len(seeds)%len(clients)], nonce(i), rng.IntN(3)
		o, err := d.Ticket(seed, client, n, keys)
		if err != nil {
			t.Fatal(err)
		}
		r := sp.ticket(seed, client, n, keys)
		if o.Tier.String() != r.tier || o.Prize != r.prize || o.Key != r.key || o.Grid.String() != r.grid || rowString(o.Row) != r.row {
			t.Fatalf("ticket %d (seed %x…, client %q, %d keys): the bot draws %v %d cents key=%v %v row %s, the reimplementation %+v",
				n, seed[:4], client, keys, o.Tier, o.Prize, o.Key, o.Grid, rowString(o.Row), r)
		}
		if o.Tier.Winning() {
			wins++
		}
	}
	// About 25% of tickets win: both branches of the grid were compared.
	if wins < tickets/5 || wins > tickets/3 {
		t.Errorf("%d wins in %d tickets", wins, tickets)
	}
	for i := 0; i < chests; i++ {
		seed, client := seeds[i%len(seeds)], clients[i/len(seeds)%len(clients)]
		seq := uint64(i/2 + 1)
		if i%2 == 1 {
			seq = rng.Uint64() | 1 // anywhere in 1..2^64−1
		}
		c, err := d.ChestNumber(seed, client, seq)
		if err != nil {
			t.Fatal(err)
		}
		if l, _ := sp.chest(seed, client, seq); c.Lot.String() != l.name || c.Prize != l.prize {
			t.Fatalf("chest %d (seed %x…, client %q): the bot draws %v, the reimplementation %s", seq, seed[:4], client, c.Lot, l.name)
		}
	}
}

// strictStream is a Source that returns the given values and fails the
// test if read past them.
type strictStream struct {
	tb   testing.TB
	vals []uint64
	read int
}

func (s *strictStream) Uint64() uint64 {
	if s.read >= len(s.vals) {
		s.tb.Fatalf("stream %x read past its %d values", s.vals, len(s.vals))
	}
	s.read++
	return s.vals[s.read-1]
}

// TestStreamVectors checks the whole-ticket vectors of FAIRNESS.md section
// 6 that are drawn over a stated stream instead of a seed's, chosen so that
// the rejection sampling of section 3 redraws: real seeds that do are too
// rare to find. Each ticket must read exactly the stated values, and the
// bot (game.Play) and the reimplementation must both give the stated u, x
// and grid.
func TestStreamVectors(t *testing.T) {
	doc := readSpec(t)
	sp := parseSpec(t, doc)
	rows := mdTable(t, doc, hdrStream)
	redraws := 0
	for _, c := range rows {
		var vals []uint64
		for _, w := range strings.Fields(c[0]) {
			v, err := strconv.ParseUint(w, 16, 64)
			if err != nil || len(w) != 16 {
				t.Fatalf("%s: stream %q: value %q is not 16 hexadecimal digits", specPath, c[0], w)
			}
			vals = append(vals, v)
		}
		keys := int(num(t, c[1]))
		want := refTicket{u: num(t, c[2]), x: num(t, c[3]), tier: c[4], key: c[5] == "yes", grid: c[6], row: c[7]}
		if c[5] != "yes" && c[5] != "no" {
			t.Fatalf("%s: stream vector %q: bad key", specPath, c)
		}
		redraws += len(vals) - 2 // one value for u, one for x, the rest redrawn

		bot := &strictStream{tb: t, vals: vals}
		o, err := game.Play(bot, keys)
		if err != nil {
			t.Fatalf("stream %s: %v", c[0], err)
		}
		us := &strictStream{tb: t, vals: vals}
		u := uint64(game.Uniform(us, game.Pool))
		x := uint64(game.Uniform(us, gridRange(o.Tier.Winning(), o.Key)))
		if bot.read != len(vals) || us.read != len(vals) || u != want.u || x != want.x || o.Tier.String() != want.tier ||
			o.Key != want.key || o.Grid.String() != want.grid || rowString(o.Row) != want.row {
			t.Errorf("stream %s, %d keys: the bot reads %d values: u %d x %d %v key=%v %v row %s; the specification says u %d x %d %s key=%v %s row %s",
				c[0], keys, bot.read, u, x, o.Tier, o.Key, o.Grid, rowString(o.Row), want.u, want.x, want.tier, want.key, want.grid, want.row)
		}

		ref := &strictStream{tb: t, vals: vals}
		r := sp.ticketFrom(ref.Uint64, keys)
		if ref.read != len(vals) || r.u != want.u || r.x != want.x || r.tier != want.tier || r.key != want.key || r.grid != want.grid || r.row != want.row {
			t.Errorf("stream %s, %d keys: the reimplementation reads %d values: %+v; the specification says %+v", c[0], keys, ref.read, r, want)
		}
	}
	if redraws < 4 {
		t.Errorf("the stream vectors redraw %d times in all, want at least 4", redraws)
	}
}
