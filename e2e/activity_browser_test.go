package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/browsertest"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// The Activity in headless Chromium: Discord's SDK runs inside an iframe
// of the fake Discord client page (fakediscord.ActivityClient) that plays
// the client's side of the SDK's postMessage protocol, against the whole
// bot and the fake Discord. The page is driven as a player would: mouse
// strokes and finger strokes over the rows, buttons, Enter. Everything it
// shows is compared with the store, and every answer the bot gave the page
// is checked for cells of rows not yet revealed.
//
// In every state a player meets (fresh, scratched, finished, chest due,
// chest opened, offline, refused) the page is laid out on a 360×740 phone
// and checked: what a player needs on screen, a note beside what it is
// about, no emoji. CLEFS_UPDATE_SCREENSHOT=1 also writes each state, on a
// desktop and on that phone, to docs/activity-<state>-{desktop,phone}.png.

// apiCall is one exchange between the page and the bot's /activity/api/.
type apiCall struct {
	Path      string
	Status    int
	Req, Resp []byte
}

// front is the fake's ActivityClient (Discord's proxy, the fake client
// page) wrapped to record every API exchange, and to answer some of a
// path's next requests itself (fault).
type front struct {
	next   http.Handler
	mu     sync.Mutex
	calls  []apiCall
	faults map[string][]int // by path (/api/buy): the next answers' statuses
}

func newFront(t *testing.T, h *harness, bot string, users ...fakediscord.OAuthUser) (*front, string) {
	f := &front{next: h.srv.ActivityClient(bot, users...), faults: map[string][]int{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() }) // the table's streams too
	return f, srv.URL
}

// fault has the next requests of path answered with statuses, one each:
// 0 loses the bot's answer (the bot did it, the page sees the connection
// drop); 401, 429 or 503 is answered for the bot, which never sees it.
func (f *front) fault(path string, statuses ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[path] = statuses
}

func (f *front) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/api/") || r.Method == http.MethodGet && r.URL.Path == "/api/table" { // the table's stream flows: the browser's log records it
		f.next.ServeHTTP(w, r)
		return
	}
	req, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(req))
	f.mu.Lock()
	fault := -1
	if q := f.faults[r.URL.Path]; len(q) > 0 {
		fault, f.faults[r.URL.Path] = q[0], q[1:]
	}
	f.mu.Unlock()
	if fault > 0 {
		w.Header().Set("Retry-After", "1")
		http.Error(w, `{"error":"`+map[int]string{401: "session", 429: "rate_limited", 503: "unavailable"}[fault]+`","message":"the bot's words, in English"}`, fault)
		return
	}
	rec := httptest.NewRecorder()
	f.next.ServeHTTP(rec, r)
	f.mu.Lock()
	f.calls = append(f.calls, apiCall{Path: strings.TrimPrefix(r.URL.Path, "/"), Status: rec.Code, Req: req, Resp: rec.Body.Bytes()})
	f.mu.Unlock()
	if fault == 0 {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

func (f *front) recorded() []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// page drives the Activity inside the client page; the Activity's document
// is top.frames[0].document (the same origin).
type page struct {
	t   *testing.T
	ctx context.Context
}

// view is what the Activity shows.
type view struct {
	Cells   []string // per cell: a symbol's index, "hidden" (no ticket), "" (under a layer, unknown)
	Covered []bool   // per row: a scratch layer still shows
	Balance string
	Keys    string
	Result  string
	Chest   string
	Note    string
	Buttons []string
	Ticket  string
	Lang    string
	Win     string // the winning rows lit, by index
	Prize   string // the prize counted up
	Landed  string // the key counter's slot the last key flew to
	Over    string // the chest's picture over the grid
}

const viewJS = `(() => { const d = top.frames[0].document, q = (s) => d.querySelector(s)?.textContent ?? '';
  return {
    Cells: [...d.querySelectorAll('.cell')].map(c => c.dataset.s ?? ''),
    Covered: [...d.querySelectorAll('.row')].map(r => { const c = r.querySelector('canvas'); return !!c && !c.classList.contains('gone') }),
    Balance: q('.balance b'), Keys: q('.keys span'), Result: q('.result'), Note: q('.note'),
    Chest: [...d.querySelectorAll('.chest')].map(e => e.textContent).join(' '),
    Buttons: [...d.querySelectorAll('button')].map(b => b.dataset.act),
    Ticket: d.getElementById('app').dataset.ticket, Lang: d.documentElement.lang,
    Win: [...d.querySelectorAll('.row.win')].map(r => r.dataset.row).join(), Prize: q('.prize'),
    Landed: d.getElementById('app').dataset.landed ?? '',
    Over: (d.querySelector('.over img')?.getAttribute('src') ?? '').replace(/^art\/|\.png$/g, ''),
  } })()`

func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluate %.120s: %v", expr, err)
	}
	return v
}

// do runs actions in the page's tab, failing the test on an error.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// until waits until cond (JavaScript) holds in the client page.
func (p *page) until(cond string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((done) => { const check = () => (`+cond+`) ? done(true) : setTimeout(check, 10); check() })`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s never held: %v; at %s the Activity shows %q; the client saw %v", cond, err, eval[string](p, `location.href`),
			eval[string](p, `top.frames[0]?.document.body.innerText ?? ''`), eval[any](p, `top.fake`))
	}
}

// idle waits until the page shows a state and has no step in flight.
func (p *page) idle() view {
	p.t.Helper()
	// A stroke is measured at the next animation frame, which may send a step.
	eval[bool](p, `new Promise((done) => top.frames[0].requestAnimationFrame(() => top.frames[0].requestAnimationFrame(() => done(true))))`)
	p.until(`(a => !!a && a.dataset.busy === '0' && a.dataset.moving === '0' && !!a.querySelector('.actions'))(top.frames[0]?.document.getElementById('app'))`)
	return eval[view](p, viewJS)
}

func (p *page) rect(sel string) (x, y, w, h float64) {
	p.t.Helper()
	r := eval[[]float64](p, `(() => { const b = top.frames[0].document.querySelector(`+strconv.Quote(sel)+`).getBoundingClientRect(); return [b.x, b.y, b.width, b.height] })()`)
	return r[0], r[1], r[2], r[3]
}

// click presses the button act with the mouse.
func (p *page) click(act string) view {
	p.t.Helper()
	x, y, w, h := p.rect(`[data-act="` + act + `"]`)
	p.do(chromedp.MouseClickXY(x+w/2, y+h/2))
	return p.idle()
}

func held(p *input.DispatchMouseEventParams) {
	p.Button, p.Buttons, p.ClickCount = input.MouseButtonLeft, 1, 1
}

func touch(typ input.DispatchTouchEventType, pts ...*input.TouchPoint) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: append([]*input.TouchPoint{}, pts...)})
		return err
	})
}

// tap touches the button act with a finger.
func (p *page) tap(act string) view {
	p.t.Helper()
	x, y, w, h := p.rect(`[data-act="` + act + `"]`)
	pt := &input.TouchPoint{X: x + w/2, Y: y + h/2}
	// The browser makes the click of a tap on its own time: wait for it.
	eval[bool](p, `(top.tapped = false, top.frames[0].document.addEventListener('click', () => top.tapped = true, {once: true, capture: true}), true)`)
	p.do(touch(input.DispatchTouchEventTypeTouchStart, pt), touch(input.DispatchTouchEventTypeTouchEnd))
	p.until(`top.tapped`)
	return p.idle()
}

// scratch strokes row r left to right at each height (a share of the
// row's height), over the share `across` of its width, with the mouse or a
// finger, and waits for what it sends.
func (p *page) scratch(r int, finger bool, across float64, heights ...float64) view {
	p.t.Helper()
	x0, y0, w, h := p.rect(fmt.Sprintf(`.row[data-row="%d"] canvas`, r))
	for _, fy := range heights {
		y := y0 + h*fy
		var acts []chromedp.Action[chromedp.Void]
		const steps = 24
		for i := 0; i <= steps; i++ {
			x := x0 + 2 + (w-4)*across*float64(i)/steps
			switch {
			case finger && i == 0:
				acts = append(acts, touch(input.DispatchTouchEventTypeTouchStart, &input.TouchPoint{X: x, Y: y}))
			case finger:
				acts = append(acts, touch(input.DispatchTouchEventTypeTouchMove, &input.TouchPoint{X: x, Y: y}))
			case i == 0:
				acts = append(acts, chromedp.MouseEvent(chromedp.MousePressed, x, y, held))
			default:
				acts = append(acts, chromedp.MouseEvent(chromedp.MouseMoved, x, y, held))
			}
		}
		if finger {
			// The finger stops before it lifts: a flick would leave a fling
			// going, and the browser takes the next tap to stop it.
			for range 5 {
				acts = append(acts, chromedp.Sleep(16*time.Millisecond), touch(input.DispatchTouchEventTypeTouchMove, &input.TouchPoint{X: x0 + 2 + (w-4)*across, Y: y}))
			}
			acts = append(acts, touch(input.DispatchTouchEventTypeTouchEnd))
		} else {
			acts = append(acts, chromedp.MouseEvent(chromedp.MouseReleased, x0+w*across, y, held))
		}
		p.do(acts...)
	}
	return p.idle()
}

// scratchAll wipes row r whole.
func (p *page) scratchAll(r int, finger bool) view {
	p.t.Helper()
	return p.scratch(r, finger, 1, 0.12, 0.4, 0.65, 0.9)
}

// key sends a key to the focused element of the Activity.
func (p *page) key(k string) view {
	p.t.Helper()
	p.do(chromedp.KeyEvent(k))
	return p.idle()
}

// layoutJS lists what is wrong with the page's layout: what a player
// needs (the title, the grid and what lies over it, every line of text,
// the buttons, the keys and the balance) outside the viewport, a page
// wider than the screen, a balance on two lines, a note that does not
// touch the buttons it is about, and emoji in the page's words.
const layoutJS = `(() => { const w = top.frames[0], d = w.document, bad = [], box = (e) => e.getBoundingClientRect();
  for (const e of d.querySelectorAll('h1, .grid, .over > *, .hint, .result, .prize, .note, .chest, button, .keys, .balance')) {
    const r = box(e);
    if (e.getClientRects().length && (r.left < 0 || r.top < 0 || r.right > w.innerWidth || r.bottom > w.innerHeight))
      bad.push(e.className || e.tagName, 'at', Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom));
  }
  if (d.documentElement.scrollWidth > w.innerWidth) bad.push('page wider than the screen');
  if (box(d.querySelector('.balance')).height > 40) bad.push('balance on two lines');
  const note = d.querySelector('.note');
  if (note.getClientRects().length && box(d.querySelector('.actions')).top - box(note).bottom > 16) bad.push('note away from the buttons');
  if (/\p{Extended_Pictographic}/u.test(d.body.innerText)) bad.push('emoji: ' + d.body.innerText);
  return bad.join(' ') })()`

// look checks the page's layout on a 360×740 phone in state (a name for
// the screenshots), and writes the screenshots on that phone and on a
// desktop when asked to. It leaves the page on the desktop (1024×768).
func (p *page) look(state string) {
	p.t.Helper()
	for _, vp := range []struct {
		name string
		act  chromedp.Action[chromedp.Void]
	}{
		// At the device pixel ratio 1: the layout is the same, the pictures half the weight.
		{"phone", chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile, chromedp.EmulateTouch)},
		{"desktop", chromedp.EmulateViewport(1024, 768)},
	} {
		p.do(vp.act)
		p.idle()
		// The moves of the page (a winning row's glow, the chest rocking) end.
		p.until(`top.frames[0].document.getAnimations().every(a => a.playState !== 'running')`)
		if bad := eval[string](p, layoutJS); bad != "" && vp.name == "phone" {
			p.t.Errorf("%s, on a 360×740 phone: %s", state, bad)
		}
		if os.Getenv("CLEFS_UPDATE_SCREENSHOT") != "1" {
			continue
		}
		buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			p.t.Fatal(err)
		}
		name := "../docs/activity-" + state + "-" + vp.name + ".png"
		if err := os.WriteFile(name, buf, 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
}

// symbols is the store's ticket as the page draws it: the symbol index of
// each cell of the revealed rows, "" for the others.
func symbols(g game.Grid, revealed game.RowMask) []string {
	out := make([]string, 9)
	for i, s := range g {
		if revealed&(1<<(i/3)) != 0 {
			out[i] = strconv.Itoa(int(s))
		}
	}
	return out
}

// stateJSON is the part of a State the checks read.
type stateJSON struct {
	Ticket *struct {
		ID   uint64   `json:"id"`
		Open bool     `json:"open"`
		Rows [3][]int `json:"rows"`
	} `json:"ticket"`
}

// checkNoHiddenCell reads every answer the page got: a row's cells appear
// only once the page asked for that row (or for Auto), and never in
// another field.
func checkNoHiddenCell(t *testing.T, calls []apiCall) {
	t.Helper()
	asked := map[uint64]game.RowMask{} // by ticket
	seen := 0
	for _, c := range calls {
		var req struct {
			Ticket uint64 `json:"ticket"`
			Row    *int   `json:"row"`
		}
		json.Unmarshal(c.Req, &req)
		if c.Path == "api/reveal" && req.Row != nil && *req.Row == -1 {
			asked[req.Ticket] = game.AllRows
		} else if c.Path == "api/reveal" && req.Row != nil {
			asked[req.Ticket] |= 1 << *req.Row
		}
		var body struct {
			stateJSON
			State *stateJSON `json:"state"`
		}
		if err := json.Unmarshal(c.Resp, &body); err != nil {
			t.Errorf("%s answered %d with something else than JSON: %q", c.Path, c.Status, c.Resp)
			continue
		}
		for _, st := range []*stateJSON{&body.stateJSON, body.State} {
			if st == nil || st.Ticket == nil {
				continue
			}
			for r, row := range st.Ticket.Rows {
				if row != nil {
					seen++
				}
				if row != nil && st.Ticket.Open && asked[st.Ticket.ID]&(1<<r) == 0 {
					t.Errorf("%s sent row %d of open ticket %d before the page asked for it: %s", c.Path, r+1, st.Ticket.ID, c.Resp)
				}
			}
		}
		if bytes.Contains(c.Resp, []byte(`"grid"`)) || bytes.Contains(c.Resp, []byte(`"outcome"`)) {
			t.Errorf("%s sent a grid or an outcome: %s", c.Path, c.Resp)
		}
	}
	if seen == 0 {
		t.Errorf("no row in any of the %d answers: nothing was checked", len(calls))
	}
}

var keysRE = regexp.MustCompile(`(\d) keys? of 3`)

// fakeClient is what the client page saw (window.fake).
type fakeClient struct {
	Handshake struct {
		ClientID string `json:"client_id"`
	}
	Commands []struct {
		Cmd  string
		Args map[string]any
	}
	Logs   []struct{ Level, Message string }
	Errors []string
}

// authorizes counts the AUTHORIZE commands the SDK sent.
func (c fakeClient) authorizes() int {
	n := 0
	for _, cmd := range c.Commands {
		if cmd.Cmd == "AUTHORIZE" {
			n++
		}
	}
	return n
}

func TestActivityInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, "the Activity", "en-US,en", 3*time.Minute)
	h := newHarness(t, map[string]string{"REDIS_URL": redistest.URL(t), "PUBLIC_ADDR": "127.0.0.1:0",
		"DISCORD_CLIENT_SECRET": fakediscord.TestClientSecret})
	h.start()
	f, origin := newFront(t, h, <-h.public, fakediscord.OAuthUser{ID: bob, Locale: "fr"})
	inst := h.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: chan1, Users: []string{alice, bob}})
	p := &page{t: t, ctx: ctx}
	open := func(user, platform string) view {
		t.Helper()
		q := url.Values{"user": {user}, "instance": {inst}, "platform": {platform}}
		p.do(chromedp.Navigate(origin + "/client/client.html?" + q.Encode()))
		return p.idle()
	}
	// store is what the store holds of user's ticket, as the page would draw it.
	store := func(user string) (*game.Ticket, []string) {
		t.Helper()
		tk := h.player(user).Ticket
		if tk == nil || !tk.Drawn {
			t.Fatalf("%s has no drawn ticket in the store: %+v", user, tk)
		}
		return tk, symbols(tk.Outcome.Grid, tk.Revealed)
	}

	// Alice, on a desktop, in English, with a mouse. The handshake: the
	// SDK's HANDSHAKE, READY, AUTHORIZE (prompt none, identify), the
	// session, AUTHENTICATE with Discord's access token.
	p.do(chromedp.EmulateViewport(1024, 768))
	v := open(alice, "desktop")
	fc := eval[fakeClient](p, `top.fake`)
	if fc.Handshake.ClientID != h.srv.AppID() || len(fc.Errors) > 0 || len(fc.Commands) < 2 || fc.Commands[0].Cmd != "AUTHORIZE" ||
		fc.Commands[0].Args["prompt"] != "none" || fc.Commands[1].Cmd != "AUTHENTICATE" || fc.Commands[1].Args["access_token"] == "" {
		t.Fatalf("the SDK's side of the handshake: %+v", fc)
	}
	if v.Ticket != "" || !slices.Equal(v.Cells, slices.Repeat([]string{"hidden"}, 9)) || v.Balance != "20.00 credits" || v.Keys != "0/3" || v.Lang != "en" {
		t.Fatalf("a new player's page: %+v", v)
	}
	p.look("fresh")

	// Ticket 1 wins three barrels. The first stroke, on row 2, draws the
	// ticket and reveals that row under its layer; a row scratched enough
	// is revealed and uncovered.
	h.draw.set(win(game.TierBarrel))
	v = p.click("buy")
	if v.Ticket != "1" || !slices.Equal(v.Covered, []bool{true, true, true}) || slices.ContainsFunc(v.Cells, func(s string) bool { return s != "" }) {
		t.Fatalf("a bought ticket: %+v", v)
	}
	v = p.scratch(1, false, 0.3, 0.5)
	if tk, want := store(alice); tk.Revealed != 0b010 || !slices.Equal(v.Cells, want) || !v.Covered[1] {
		t.Fatalf("the first stroke: the store has rows %03b %v, the page shows %+v", tk.Revealed, want, v)
	}
	v = p.scratchAll(0, false)
	if tk, want := store(alice); tk.Revealed != 0b011 || !slices.Equal(v.Cells, want) || !slices.Equal(v.Covered, []bool{false, true, true}) {
		t.Fatalf("row 1 scratched: the store has rows %03b %v, the page shows %+v", tk.Revealed, want, v)
	}
	p.scratch(1, false, 0.6, 0.25)
	p.look("scratched")
	if v = p.scratchAll(1, false); !slices.Equal(v.Covered, []bool{false, false, true}) {
		t.Fatalf("row 2 scratched whole: %+v", v)
	}
	// Enter with nothing focused reveals the next row, the last one; a
	// reveal the bot cannot answer (503, three times: a 429 the page waits
	// out by itself) is said in the page's words and asked again by the
	// next Enter.
	eval[bool](p, `(top.frames[0].document.activeElement?.blur(), top.frames[0].focus(), true)`)
	f.fault("/api/reveal", 503, 503, 503)
	if v = p.key(kb.Enter); !strings.HasPrefix(v.Note, "The game could not answer.") || !v.Covered[2] {
		t.Fatalf("Enter, 503: %+v", v)
	}
	_, gy, _, gh := p.rect(".grid")
	if _, ny, _, _ := p.rect(".note"); ny-(gy+gh) > 16 {
		t.Errorf("the failed reveal's note is %.0f px under the grid", ny-(gy+gh))
	}
	v = p.key(kb.Enter)
	if tk, want := store(alice); tk.Open() || !slices.Equal(v.Cells, want) || slices.Contains(v.Covered, true) ||
		!strings.Contains(v.Result, "Three barrels") || v.Balance != "20.00 credits" || !slices.Contains(v.Buttons, "buy") {
		t.Fatalf("the ticket finished: the store has %v, the page shows %+v", want, v)
	}
	// The winning row lights up; the prize has counted up to its amount.
	if r, _ := strconv.Atoi(v.Win); v.Win == "" || v.Cells[3*r] != v.Cells[3*r+1] || v.Cells[3*r] != v.Cells[3*r+2] || v.Prize != "+0.50 credits" {
		t.Errorf("the win: row %q lit, prize %q; the cells %v", v.Win, v.Prize, v.Cells)
	}
	p.look("finished")

	// Ticket 2 loses with a key: row 3 by keyboard (its layer focused,
	// Enter), not answered (503), then by scratching; then Auto.
	h.draw.set(loss(true))
	p.click("buy")
	eval[bool](p, `(top.frames[0].document.querySelector('.row[data-row="2"] canvas').focus(), true)`)
	f.fault("/api/reveal", 503, 503, 503)
	if v = p.key(kb.Enter); !strings.HasPrefix(v.Note, "The game could not answer.") || !v.Covered[2] {
		t.Fatalf("Enter on row 3's layer, 503: %+v", v)
	}
	// Row 3 holds a key: it flies to the counter's first slot.
	if v = p.scratchAll(2, false); !slices.Equal(v.Covered, []bool{true, true, false}) || v.Note != "" || v.Keys != "1/3" || v.Landed != "0" {
		t.Fatalf("row 3 scratched after a failed reveal: %+v", v)
	}
	if v = p.click("auto"); v.Keys != "1/3" || !strings.Contains(v.Result, "key") || v.Win != "" {
		t.Fatalf("Auto: %+v", v)
	}

	// Ticket 3: the bot's answer to the buy is lost, then the session is
	// stale at Auto. The page sends the buy again with the same operation
	// ID (one ticket, one stake) and renews the session once.
	f.fault("/api/buy", 0)
	f.fault("/api/reveal", 401)
	if v = p.click("buy"); v.Ticket != "3" || v.Balance != "19.00 credits" || h.player(alice).Balance != 1900 {
		t.Fatalf("a buy whose answer was lost, sent again: %+v, the store %d", v, h.player(alice).Balance)
	}
	var buys []string
	for _, c := range f.recorded() {
		if c.Path == "api/buy" {
			var b struct{ Op string }
			json.Unmarshal(c.Req, &b)
			buys = append(buys, b.Op)
		}
	}
	if n := len(buys); n != 4 || buys[2] != buys[3] || buys[1] == buys[2] || len(buys[2]) != 22 {
		t.Errorf("the buys' operation IDs: %q; want the lost one sent again unchanged, 22 characters", buys)
	}
	if v = p.click("auto"); v.Keys != "2/3" || eval[fakeClient](p, `top.fake`).authorizes() != 2 {
		t.Fatalf("Auto with a stale session: %+v, the client saw %+v", v, eval[fakeClient](p, `top.fake`))
	}

	// Ticket 4 brings the third key, on a small phone (360×740): the
	// chest due fits the screen, said once, with three keys; then the
	// chest, opened by its button.
	p.click("buy")
	h.draw.setChest(chestOf(game.LotSilver))
	p.do(chromedp.EmulateViewport(360, 740, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	v = p.click("auto")
	if !slices.Contains(v.Buttons, "chest") || slices.Contains(v.Buttons, "buy") || strings.Count(v.Result+v.Chest, "chest is ready") != 1 ||
		v.Keys != "3/3" || v.Landed != "2" || v.Over != "chest" {
		t.Fatalf("the third key: %+v", v)
	}
	if hgt := eval[[]int](p, `[top.frames[0].document.documentElement.scrollHeight, top.frames[0].innerHeight]`); hgt[0] > hgt[1] {
		t.Errorf("with the chest due, the page is %d px high for a screen of %d", hgt[0], hgt[1])
	}
	p.look("chest-due")
	if v = p.click("chest"); !strings.Contains(v.Chest, "one silver coin") || v.Balance != "19.50 credits" || !slices.Contains(v.Buttons, "buy") ||
		v.Over != "chest-open" || v.Prize != "+1.00 credit" {
		t.Fatalf("the chest opened: %+v", v)
	}
	p.look("chest-opened")
	if v = p.click("daily"); slices.Contains(v.Buttons, "daily") || v.Balance != "24.50 credits" || v.Over != "" {
		t.Fatalf("the daily bonus: %+v", v)
	}
	// The network is down: the page says so, above the button to try again.
	offline := func(off bool) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
				MatchedNetworkConditions: []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}}})
			return err
		})
	}
	p.do(offline(true))
	if v = p.click("buy"); !strings.HasPrefix(v.Note, "The connection failed.") || v.Balance != "24.50 credits" || v.Ticket != "4" {
		t.Fatalf("a buy with the network down: %+v", v)
	}
	p.look("offline")
	p.do(offline(false))

	// A refusal shows the bot's own words: a moderator left 0.30 credits.
	r := h.slash(modSlash("set-balance", "", opt("user", alice), opt("amount", "0.30")))
	if strings.Contains(text(r.Message), "Only moderators") {
		t.Fatal(text(r.Message))
	}
	// Back in view, the page reads the state again.
	eval[bool](p, `top.frames[0].document.dispatchEvent(new Event('visibilitychange'))`)
	p.until(`top.frames[0].document.querySelector('.balance b').textContent === '0.30 credits'`)
	if v = p.click("buy"); !strings.HasPrefix(v.Note, "Not enough credits") || v.Balance != "0.30 credits" {
		t.Fatalf("a buy with 0.30 credits: %+v", v)
	}
	p.look("refused")
	bal := h.slash(fakediscord.Slash{User: alice, Name: "balance"}).Message
	if m := keysRE.FindStringSubmatch(text(bal)); shownBalance(t, bal) != 30 || m == nil || m[1]+"/3" != v.Keys {
		t.Errorf("/balance says %q; the page %s, %s keys", text(bal), v.Balance, v.Keys)
	}

	// Bob, on a phone held upright, in French, with a finger, who asked for
	// less motion: nothing moves, the buttons work. A tab of his own.
	ctx, cancel := chromedp.NewContext(ctx)
	defer cancel()
	p.ctx = ctx
	p.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
			return err
		}))
	if v = open(bob, "mobile"); v.Lang != "fr" || v.Balance != "20,00 crédits" {
		t.Fatalf("bob's page: %+v", v)
	}
	h.draw.set(win(game.TierCandle))
	p.tap("buy")
	v = p.scratchAll(0, true)
	if tk, want := store(bob); tk.Revealed != 0b001 || !slices.Equal(v.Cells, want) || !slices.Equal(v.Covered, []bool{false, true, true}) {
		t.Fatalf("row 1 scratched with a finger: the store has %v, the page shows %+v", want, v)
	}
	if d := eval[string](p, `getComputedStyle(top.frames[0].document.querySelector('.row[data-row="1"] canvas')).transitionDuration`); d != "0s" {
		t.Errorf("with reduced motion, a layer fades in %s", d)
	}
	if v = p.scratch(1, true, 0.5, 0.3, 0.7); !v.Covered[1] || v.Cells[3] == "" {
		t.Fatalf("row 2 half scratched: its symbols come up under its layer: %+v", v)
	}
	if v = p.tap("next"); !slices.Equal(v.Covered, []bool{false, false, true}) {
		t.Fatalf("the next row tapped: %+v", v)
	}
	// The bot cannot answer the last row's reveal (503, three times): said
	// in French, asked again by the next tap.
	f.fault("/api/reveal", 503, 503, 503)
	if v = p.tap("next"); !strings.HasPrefix(v.Note, "Le jeu n’a pas pu répondre.") || !v.Covered[2] {
		t.Fatalf("the next row tapped, 503: %+v", v)
	}
	// Without motion, the same: the row lit, the prize at once, nothing moving.
	if v = p.tap("next"); v.Ticket != "1" || !strings.Contains(v.Result, "Trois bougies") || v.Balance != "20,50 crédits" ||
		v.Win == "" || v.Prize != "+1,00 crédit" {
		t.Fatalf("bob's ticket: %+v", v)
	}
	if n := eval[int](p, `top.frames[0].document.getAnimations().length`); n != 0 {
		t.Errorf("with reduced motion, %d animations run", n)
	}
	if _, want := store(bob); !slices.Equal(v.Cells, want) {
		t.Errorf("bob's page shows %v, the store has %v", v.Cells, want)
	}

	fc = eval[fakeClient](p, `top.fake`)
	for _, l := range fc.Logs {
		if l.Level == "error" || l.Level == "warn" {
			t.Errorf("the page logged %s: %s", l.Level, l.Message)
		}
	}
	checkNoHiddenCell(t, f.recorded())
	h.noFailures()
}
