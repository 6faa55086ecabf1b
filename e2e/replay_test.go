package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/redistest"
)

// signedPost is a request as Discord POSTed it: its body and the headers
// that sign it.
type signedPost struct {
	body   []byte
	header http.Header
}

// recorder passes Discord's POSTs on to one bot process and keeps the last
// one, to replay it.
type recorder struct {
	proxy *httputil.ReverseProxy
	mu    sync.Mutex
	last  signedPost
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.last = signedPost{body: body, header: r.Header.Clone()}
	rc.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rc.proxy.ServeHTTP(w, r)
}

func (rc *recorder) lastPost() signedPost {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.last
}

// replay POSTs p again, byte for byte with its signature, to the endpoint
// at addr, and returns the status and body of the answer.
func replay(tb testing.TB, addr string, p signedPost) (int, []byte) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/interactions", bytes.NewReader(p.body))
	if err != nil {
		tb.Fatal(err)
	}
	for _, k := range []string{"Content-Type", "X-Signature-Ed25519", "X-Signature-Timestamp", "User-Agent"} {
		req.Header.Set(k, p.header.Get(k))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("replay to %s: %v", addr, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestReplayToAnotherProcess runs two bot processes, A and B, serving the
// HTTP endpoint on one Redis. A signed interaction delivered to A is
// replayed, identical, to B: B has not seen it (replay protection is per
// process) and answers it, but under the same operation ID nothing changes
// a second time. B's answer is the result A gave; the books (balance,
// history, moderator log, from an export) show one change. The same replay
// to A is refused.
func TestReplayToAnotherProcess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, httpEnv(map[string]string{"REDIS_URL": redistest.URL(t)}))
	addrs, stop := h.serveTwo()
	a, b := addrs[0], addrs[1]
	u, err := url.Parse("http://" + a)
	if err != nil {
		t.Fatal(err)
	}
	rc := &recorder{proxy: httputil.NewSingleHostReverseProxy(u)}
	front := httptest.NewServer(rc)
	defer front.Close()
	h.srv.SetInteractionsURL(front.URL + "/interactions")

	for _, tt := range []struct {
		name string
		sl   fakediscord.Slash
	}{
		{"a moderator's grant", modSlash("grant", "", opt("user", bob), opt("amount", "1.00"), opt("reason", "replayed"))},
		{"a /daily", fakediscord.Slash{User: alice, Name: "daily"}},
	} {
		first := h.slash(tt.sl) // through A
		p := rc.lastPost()
		var sent discordgo.Interaction
		if err := json.Unmarshal(p.body, &sent); err != nil || sent.Type != discordgo.InteractionApplicationCommand ||
			sent.ApplicationCommandData().Name != tt.sl.Name || p.header.Get("X-Signature-Ed25519") == "" {
			t.Fatalf("%s: no signed command recorded (%v): %q", tt.name, err, p.body)
		}
		status, body := replay(t, b, p)
		if status != http.StatusOK {
			t.Fatalf("%s replayed to B: %d %s, want 200 (B has not seen it)", tt.name, status, body)
		}
		var resp discordgo.InteractionResponse
		if err := json.Unmarshal(body, &resp); err != nil || resp.Data == nil {
			t.Fatalf("%s replayed to B: answer %s: %v", tt.name, body, err)
		}
		if resp.Type != discordgo.InteractionResponseChannelMessageWithSource {
			t.Fatalf("%s replayed to B: answer of type %d, want a message: %s", tt.name, resp.Type, body)
		}
		got := text(&discordgo.Message{Content: resp.Data.Content, Embeds: resp.Data.Embeds})
		t.Logf("%s: B answered %q", tt.name, got)
		if want := text(first.Message); got != want {
			t.Errorf("%s: B answered\n%s\nA answered\n%s\nwant the same result", tt.name, got, want)
		}
		if status, body := replay(t, a, p); status != http.StatusConflict {
			t.Errorf("%s replayed to A: %d %s, want 409 (A has seen it)", tt.name, status, body)
		}
	}
	stop()
	h.noFailures()

	// The books: one grant, one daily.
	if p := h.player(bob); p.Balance != 2000+100 {
		t.Errorf("bob's balance %d after one grant of 1.00 replayed, want %d", p.Balance, 2000+100)
	}
	if p := h.player(alice); p.Balance != 2000+h.cfg.DailyAmount {
		t.Errorf("alice's balance %d after one /daily replayed, want %d", p.Balance, 2000+h.cfg.DailyAmount)
	}
	st := h.store()
	defer st.Close()
	d, err := storage.ExportDump(context.Background(), st.(storage.Dumper))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Players {
		var kinds []game.Kind
		for _, e := range p.History {
			kinds = append(kinds, e.Kind)
		}
		want := map[uint64]game.Kind{id(bob): game.KindGrant, id(alice): game.KindDaily}[p.ID.User]
		if len(kinds) != 1 || kinds[0] != want {
			t.Errorf("player %d: history %v, want one %s", p.ID.User, kinds, want)
		}
	}
	var grants int
	for _, g := range d.Guilds {
		for _, e := range g.Audit {
			if e.Action == "grant" && e.Target == id(bob) {
				grants++
			}
		}
	}
	if grants != 1 {
		t.Errorf("%d grants in the moderator log, want 1", grants)
	}
}
