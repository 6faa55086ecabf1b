package activity

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
)

// BenchmarkTableLoad opens CLEFS_TABLES tables (default 200) of 5 pages
// on one process over HTTP, the game on the embedded store (or Redis with
// CLEFS_LOAD_REDIS), and has every player step (buy, then the rows one by
// one) about every CLEFS_STEP (default 2 s) for CLEFS_LOAD_FOR (default
// 30 s). It reports the delay from each step's answer to its owner to the
// same seat reaching the 4 other pages (p50, p99; a page served before the
// owner counts 0), and the heap after GC at the end of the first minute
// (or half the run) and at the end. Run once:
//
//	go test ./activity/ -run X -bench TableLoad -benchtime 1x
func BenchmarkTableLoad(b *testing.B) {
	env := func(k string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil {
			return n
		}
		return def
	}
	tables := env("CLEFS_TABLES", 200)
	run, _ := time.ParseDuration(os.Getenv("CLEFS_LOAD_FOR"))
	run = max(run, 30*time.Second)
	every, _ := time.ParseDuration(os.Getenv("CLEFS_STEP"))
	every = max(every, 2*time.Second)
	log := slog.New(slog.DiscardHandler)
	store, err := backend.Open(context.Background(), os.Getenv("CLEFS_LOAD_REDIS"), filepath.Join(b.TempDir(), "clefs.db"), storage.Options{
		Defaults: game.Settings{StartingBalance: 1_000_000, PublicPlays: true, House: game.DefaultHouse},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	var bus Bus
	if bb, ok := store.(Bus); ok {
		bus = bb
	}
	hh, err := New(Options{Game: commands.New(commands.Config{Logger: log}, store), AppID: "1", ClientSecret: "s", Token: "t",
		Logger: log, Rate: 1e6, Burst: 1e6, Bus: bus})
	if err != nil {
		b.Fatal(err)
	}
	h := hh.(*handler)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000, MaxConnsPerHost: 0}}
	guild := rand.Uint64N(1<<40) + 1

	var mu sync.Mutex
	answered := map[string]time.Time{}   // by seat (user, ticket, rows shown): when its owner had the answer
	received := map[string][]time.Time{} // by seat: when each other page had it
	key := func(user string, t *commands.ActTicket, c *commands.ActChest) string {
		n := 0
		for _, r := range t.Rows {
			if r != nil {
				n++
			}
		}
		if c != nil {
			return fmt.Sprintf("%s/%d/%d/chest%d", user, t.ID, n, c.ID)
		}
		return fmt.Sprintf("%s/%d/%d", user, t.ID, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	sessions := make([]string, 0, tables*5)
	for i := range tables {
		for p := range 5 {
			user := strconv.Itoa(1_000_000 + 10*i + p)
			s := sign(h.key, session{U: user, G: strconv.FormatUint(guild, 10), C: "2", I: "inst" + strconv.Itoa(i), E: time.Now().Add(time.Hour).Unix()})
			sessions = append(sessions, s)
			pass := post[struct{ Pass string }](b, client, srv.URL+"/activity/api/table", s, "")
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/activity/api/table?t="+pass.Pass, nil)
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("stream %s: %v %v", user, resp, err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				seat := false
				for sc.Scan() {
					line := sc.Text()
					if strings.HasPrefix(line, "event: ") {
						seat = line == "event: seat"
					} else if data, ok := strings.CutPrefix(line, "data: "); ok && seat {
						now := time.Now()
						var s struct {
							User   string
							Ticket *commands.ActTicket
							Chest  *commands.ActChest
						}
						if json.Unmarshal([]byte(data), &s) == nil && s.Ticket != nil && s.User != user {
							mu.Lock()
							k := key(s.User, s.Ticket, s.Chest)
							received[k] = append(received[k], now)
							mu.Unlock()
						}
					}
				}
			}()
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	b.ResetTimer()
	start := time.Now()
	var players sync.WaitGroup
	for i, s := range sessions {
		players.Add(1)
		go func() {
			defer players.Done()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			time.Sleep(time.Duration(r.Int64N(int64(every))))
			var ticket uint64
			var due int64
			row := 3 // the rows revealed of the ticket
			for n := 0; time.Since(start) < run; n++ {
				var kind, body string
				switch {
				case due > 0:
					kind, body = "chest", fmt.Sprintf(`{"op":"chest-%015d","chest":%d}`, n, due)
				case row == 3:
					kind, body = "buy", fmt.Sprintf(`{"op":"buy-%016d"}`, n)
				default:
					kind, body = "reveal", fmt.Sprintf(`{"op":"reveal-%013d","ticket":%d,"row":%d}`, n, ticket, row)
				}
				st := post[commands.ActState](b, client, srv.URL+"/activity/api/"+kind, s, body)
				at := time.Now()
				if st.Ticket == nil {
					return
				}
				if due, ticket = st.ChestDue, st.Ticket.ID; kind == "buy" {
					row = 0
				} else if kind == "reveal" {
					row++
				}
				if kind != "chest" {
					mu.Lock()
					answered[key(st.User, st.Ticket, st.Chest)] = at
					mu.Unlock()
				}
				time.Sleep(every/2 + time.Duration(r.Int64N(int64(every))))
			}
		}()
	}
	mid := run / 2
	if run > 2*time.Minute {
		mid = time.Minute
	}
	time.Sleep(mid)
	heapMid := heap()
	players.Wait()
	time.Sleep(time.Second) // the last updates
	heapEnd := heap()
	b.StopTimer()
	cancel()
	wg.Wait()
	var delays []time.Duration
	mu.Lock()
	for k, at := range answered {
		for _, got := range received[k] {
			delays = append(delays, max(0, got.Sub(at)))
		}
	}
	mu.Unlock()
	slices.Sort(delays)
	if len(delays) == 0 {
		b.Fatal("no update reached another page")
	}
	pct := func(p float64) float64 { return float64(delays[int(p*float64(len(delays)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(answered)), "steps")
	b.ReportMetric(float64(len(delays)), "deliveries")
	b.ReportMetric(pct(.5), "p50-ms")
	b.ReportMetric(pct(.99), "p99-ms")
	b.ReportMetric(float64(heapMid)/(1<<20), "heap-mid-MiB")
	b.ReportMetric(float64(heapEnd)/(1<<20), "heap-end-MiB")
}

// post sends a step of the session and decodes its 200.
func post[T any](b *testing.B, c *http.Client, url, session, body string) T {
	var v T
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+session)
	resp, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return v
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&v) != nil {
		msg, _ := io.ReadAll(resp.Body)
		b.Errorf("%s: %d %s", url, resp.StatusCode, msg)
	}
	return v
}
