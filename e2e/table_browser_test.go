package e2e_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/browsertest"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// tablePage is a tab of the table test: the page, and the table's stream
// as the browser's network log holds it ("event data" lines).
type tablePage struct {
	*page
	user string
	mu   sync.Mutex
	log  []string
}

func (p *tablePage) events() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}

// seatJSON is a seat of the table's stream.
type seatJSON struct {
	User   string `json:"user"`
	Ticket *struct {
		ID   uint64   `json:"id"`
		Open bool     `json:"open"`
		Rows [3][]int `json:"rows"`
	} `json:"ticket"`
}

// TestTableInBrowser: two players and one who watches, in one Activity
// instance, on Redis with two bot processes (shards 0 and 1 of 2), the
// first serving Alice's and Carol's pages, the second Bob's. Each page
// shows the others' revealed rows and results as they come, in order; at
// every step, no page's network log holds a cell the store has not
// recorded as revealed; a participant who leaves goes from the others'
// tables.
func TestTableInBrowser(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, "the table", "en-US,en", 3*time.Minute)
	h := newHarness(t, map[string]string{"REDIS_URL": redistest.URL(t), "PUBLIC_ADDR": "127.0.0.1:0",
		"DISCORD_CLIENT_SECRET": fakediscord.TestClientSecret, "DISCORD_GUILD_ID": "", "SHARD_IDS": "0", "SHARD_COUNT": "2"})
	h.start()
	cfg := h.cfg
	cfg.ShardIDs = []int{1}
	_, second, _ := h.spawn(cfg)
	bots := [2]string{<-h.public, second}
	fronts, origins := [2]*front{}, [2]string{}
	for i, bot := range bots {
		fronts[i], origins[i] = newFront(t, h, bot)
	}
	if err := chromedp.Do(ctx); err != nil { // the browser, whose tabs the pages are
		t.Fatal(err)
	}
	inst := h.srv.StartActivity(fakediscord.Activity{Guild: guild, Channel: chan1, Users: []string{alice, bob, carol}})
	open := func(user string, bot int) *tablePage {
		t.Helper()
		p := &tablePage{user: user}
		c, cancel := chromedp.NewContext(ctx, chromedp.WithListener(func(ev any) {
			if e, ok := ev.(*network.EventEventSourceMessageReceived); ok {
				p.mu.Lock()
				p.log = append(p.log, e.EventName+" "+e.Data)
				p.mu.Unlock()
			}
		}))
		t.Cleanup(cancel)
		p.page = &page{t: t, ctx: c}
		q := url.Values{"user": {user}, "instance": {inst}, "people": {alice + "," + bob + "," + carol}}
		p.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
			return err
		}), chromedp.EmulateViewport(1024, 900), chromedp.Navigate(origins[bot]+"/client/client.html?"+q.Encode()))
		p.idle()
		return p
	}
	pa, pb, pc := open(alice, 0), open(bob, 1), open(carol, 0)
	pages := []*tablePage{pa, pb, pc}
	for _, p := range pages {
		p.until(`top.frames[0].document.querySelectorAll('.seat').length === 2`)
	}

	// mini is what p shows of user's ticket: per cell, a symbol or "".
	mini := func(p *tablePage, user string) []string {
		return eval[[]string](p.page, `[...top.frames[0].document.querySelectorAll('.seat[data-user="`+user+`"] .mini .pip')].map(c => c.dataset.s ?? '')`)
	}
	// check: every seat in every page's log shows only rows the store has
	// recorded as revealed, with the store's symbols, and each player's
	// seats come in order.
	checked := 0 // rows checked
	check := func(when string) {
		t.Helper()
		now := map[string]game.Player{alice: h.player(alice), bob: h.player(bob), carol: {}}
		for _, p := range pages {
			last := map[string][2]uint64{}
			for _, e := range p.events() {
				name, data, _ := strings.Cut(e, " ")
				var seats []seatJSON
				if name == "table" {
					json.Unmarshal([]byte(data), &seats)
				} else {
					seats = make([]seatJSON, 1)
					json.Unmarshal([]byte(data), &seats[0])
				}
				for _, s := range seats {
					if s.Ticket == nil {
						continue
					}
					tk := now[s.User].Ticket
					n := uint64(0)
					for r, row := range s.Ticket.Rows {
						if row == nil {
							continue
						}
						n++
						checked++
						if tk == nil || tk.ID < s.Ticket.ID || tk.ID == s.Ticket.ID && tk.Revealed&(1<<r) == 0 {
							t.Errorf("%s: %s's page got row %d of %s's ticket %d, which the store has not revealed: %s", when, p.user, r+1, s.User, s.Ticket.ID, e)
						} else if tk.ID == s.Ticket.ID && !slices.Equal(row, symbolsOf(tk.Outcome.Grid, r)) {
							t.Errorf("%s: %s's page got row %d of %s's ticket as %v, the store has %v", when, p.user, r+1, s.User, row, tk.Outcome.Grid)
						}
					}
					if k := [2]uint64{s.Ticket.ID, n}; k[0] < last[s.User][0] || k[0] == last[s.User][0] && k[1] < last[s.User][1] {
						t.Errorf("%s: %s's page got %s's seats out of order: %s after %v", when, p.user, s.User, e, last[s.User])
					} else {
						last[s.User] = k
					}
				}
			}
		}
	}
	// seen waits until the others' pages show user's ticket as the store has it.
	seen := func(user string, when string) {
		t.Helper()
		tk := h.player(user).Ticket
		want := symbols(tk.Outcome.Grid, tk.Revealed)
		for _, p := range pages {
			if p.user == user {
				continue
			}
			js, _ := json.Marshal(want)
			p.until(`JSON.stringify([...top.frames[0].document.querySelectorAll('.seat[data-user="` + user + `"] .mini .pip')].map(c => c.dataset.s ?? '')) === ` + strconv.Quote(string(js)))
			if got := mini(p, user); !slices.Equal(got, want) {
				t.Errorf("%s: %s's page shows %s's ticket as %v, the store has %v", when, p.user, user, got, want)
			}
		}
		check(when)
	}
	check("at first")

	// Alice wins (three candles), row by row; Bob loses, with Auto.
	h.draw.set(win(game.TierCandle))
	pa.click("buy")
	seen(alice, "alice bought")
	for r := range 3 {
		pa.click("next")
		seen(alice, "alice revealed a row "+string(rune('1'+r)))
	}
	for _, p := range []*tablePage{pb, pc} {
		p.until(`top.frames[0].document.querySelector('.news').textContent.includes('won')`)
		if res := eval[string](p.page, `top.frames[0].document.querySelector('.seat[data-user="`+alice+`"]').dataset.result`); res != strconv.FormatInt(h.player(alice).Ticket.Outcome.Prize, 10) {
			t.Errorf("%s's page shows alice's prize as %q", p.user, res)
		}
	}
	h.draw.set(loss(false))
	pb.click("buy")
	seen(bob, "bob bought")
	pb.click("auto")
	seen(bob, "bob's Auto")
	for _, p := range []*tablePage{pa, pc} {
		if res := eval[string](p.page, `top.frames[0].document.querySelector('.seat[data-user="`+bob+`"]').dataset.result`); res != "0" {
			t.Errorf("%s's page shows bob's result as %q", p.user, res)
		}
	}

	// Carol's page, the table under her card: on a phone, what she needs of
	// her card still lies on the screen; the picture for docs/activity.md.
	pc.do(chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile, chromedp.EmulateTouch))
	pc.idle()
	if bad := eval[string](pc.page, layoutJS); bad != "" {
		t.Errorf("with the table, on a 360×740 phone: %s", bad)
	}
	if os.Getenv("CLEFS_UPDATE_SCREENSHOT") == "1" {
		pc.do(chromedp.EmulateViewport(480, 1100))
		pc.idle()
		buf, err := chromedp.Run(pc.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../docs/activity-table.png", buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Carol leaves: Discord tells the others' clients, her stream closes.
	if err := chromedp.Cancel(pc.ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*tablePage{pa, pb} {
		eval[any](p.page, `top.fake.participants(['`+alice+`', '`+bob+`'])`)
		p.until(`!top.frames[0].document.querySelector('.seat[data-user="` + carol + `"]')`)
	}
	leave := func(p *tablePage) bool {
		return slices.ContainsFunc(p.events(), func(e string) bool { return strings.HasPrefix(e, "leave ") && strings.Contains(e, carol) })
	}
	for deadline := time.Now().Add(20 * time.Second); !(leave(pa) && leave(pb)) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !leave(pa) || !leave(pb) {
		t.Errorf("no leave of carol's in the streams: %q, %q", pa.events(), pb.events())
	}
	check("at the end")
	if checked < 3*3*2 { // three pages, two tickets of three rows, at the least
		t.Errorf("only %d rows in the pages' streams: nothing much was checked", checked)
	}
	for _, f := range fronts {
		checkNoHiddenCell(t, f.recorded())
	}
	h.noFailures()
}

func symbolsOf(g game.Grid, r int) []int {
	return []int{int(g[3*r]), int(g[3*r+1]), int(g[3*r+2])}
}
