package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// start runs the command with args until the test ends (then checks it
// stopped cleanly), and returns what it prints on stdout and its URL, the
// first line.
func start(t *testing.T, args ...string) (*bufio.Reader, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, pw, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("run did not stop")
		}
	})
	out := bufio.NewReader(pr)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return out, strings.TrimSpace(line)
}

// get GETs url with the Authorization header auth ("" for none).
func get(t *testing.T, url, auth string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRunPrintsURLAndServesControl starts the command, reads its URL and
// checks the control API and the token check answer.
func TestRunPrintsURLAndServesControl(t *testing.T) {
	_, base := start(t, "-token", "T", "-guilds", "1,2")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("printed %q, want a loopback URL", base)
	}
	if code, body := get(t, base+"/api/v10/gateway", "Bot T"); code != 200 || !strings.Contains(body, `"url":"ws://127.0.0.1:`) {
		t.Errorf("GET /gateway = %d %s", code, body)
	}
	if code, _ := get(t, base+"/api/v10/users/@me", "Bot nope"); code != 401 {
		t.Errorf("wrong token: %d, want 401", code)
	}
	code, body := get(t, base+"/_fake/failures", "")
	var failures []map[string]any
	if code != 200 || json.Unmarshal([]byte(body), &failures) != nil || len(failures) != 1 {
		t.Errorf("GET /_fake/failures = %d %s, want the one 401", code, body)
	}
	resp, err := http.Post(base+"/_fake/slash", "application/json", strings.NewReader(`{"guild":"1","user":"42","name":"play"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("slash of an unregistered command: %d, want 400", resp.StatusCode)
	}
}

func TestRunNeedsToken(t *testing.T) {
	if err := run(context.Background(), nil, io.Discard, io.Discard); err == nil {
		t.Error("run without -token succeeded")
	}
}

func TestHelp(t *testing.T) {
	var out, errOut strings.Builder
	if err := run(context.Background(), []string{"-h"}, &out, &errOut); err != nil {
		t.Fatalf("-h: %v (main exits 1)", err)
	}
	for _, want := range []string{"-token", "-interactions", "-shards", "-token-life", "-heartbeat", "-seed",
		"POST   /_fake/faults", "rate_limit_not_json", fakediscord.ControlAPI} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-h does not print %.40q", want)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("-h wrote on stderr: %q", errOut.String())
	}
	for _, args := range [][]string{
		{"-nope"}, {"-token", "T", "-shards", "0"}, {"-token", "T", "-interactions", "localhost:8080/x"},
		{"-token", "T", "-token-life", "0s"}, {"-token", "T", "-heartbeat", "-1s"}, {"-token", "T", "-seed", "x"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestRunInteractionsAndShards: with -interactions the public key follows
// the URL on stdout, then with -activities the client secret as the bot's
// .env takes it (and the application has its entry point), and -shards is
// what GET /gateway/bot recommends.
func TestRunInteractionsAndShards(t *testing.T) {
	r, base := start(t, "-token", "T", "-shards", "3", "-interactions", "http://127.0.0.1:1/interactions", "-activities")
	key, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if key = strings.TrimSpace(key); key != fakediscord.TestPublicKeyHex {
		t.Errorf("second line = %q, want the public key %s", key, fakediscord.TestPublicKeyHex)
	}
	if secret, _ := r.ReadString('\n'); secret != "DISCORD_CLIENT_SECRET="+fakediscord.TestClientSecret+"\n" {
		t.Errorf("third line = %q, want the client secret for the bot's .env", secret)
	}
	_, body := get(t, base+"/_fake/commands", "")
	var cmds []struct{ Type int }
	if err := json.Unmarshal([]byte(body), &cmds); err != nil || len(cmds) != 1 || cmds[0].Type != 4 {
		t.Errorf("with -activities, the global commands = %+v, %v; want the entry point (type 4)", cmds, err)
	}
	_, body = get(t, base+"/api/v10/gateway/bot", "Bot T")
	var gb struct {
		Shards int `json:"shards"`
	}
	if err := json.Unmarshal([]byte(body), &gb); err != nil || gb.Shards != 3 {
		t.Errorf("GET /gateway/bot shards = %d, %v; want 3", gb.Shards, err)
	}
	_, body = get(t, base+"/_fake/endpoint", "")
	var ep map[string]string
	_ = json.Unmarshal([]byte(body), &ep)
	if ep["url"] != "http://127.0.0.1:1/interactions" || ep["public_key"] != key {
		t.Errorf("GET /_fake/endpoint = %v", ep)
	}
}
