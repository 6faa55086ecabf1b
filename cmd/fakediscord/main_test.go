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

// TestRunPrintsURLAndServesControl starts the command, reads its URL and
// checks the control API and the token check answer.
func TestRunPrintsURLAndServesControl(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-token", "T", "-guilds", "1,2"}, pw, io.Discard) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("printed %q, want a loopback URL", base)
	}
	get := func(path, auth string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
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
	if code, body := get("/api/v10/gateway", "Bot T"); code != 200 || !strings.Contains(body, `"url":"ws://127.0.0.1:`) {
		t.Errorf("GET /gateway = %d %s", code, body)
	}
	if code, _ := get("/api/v10/users/@me", "Bot nope"); code != 401 {
		t.Errorf("wrong token: %d, want 401", code)
	}
	code, body := get("/_fake/failures", "")
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
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop")
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-token", "T", "-shards", "3", "-interactions", "http://127.0.0.1:1/interactions", "-activities"}, pw, io.Discard)
	}()
	r := bufio.NewReader(pr)
	base, _ := r.ReadString('\n')
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
	resp, err := http.Get(strings.TrimSpace(base) + "/_fake/commands")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []struct{ Type int }
	err = json.NewDecoder(resp.Body).Decode(&cmds)
	resp.Body.Close()
	if err != nil || len(cmds) != 1 || cmds[0].Type != 4 {
		t.Errorf("with -activities, the global commands = %+v, %v; want the entry point (type 4)", cmds, err)
	}
	req, _ := http.NewRequest("GET", strings.TrimSpace(base)+"/api/v10/gateway/bot", nil)
	req.Header.Set("Authorization", "Bot T")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var gb struct {
		Shards int `json:"shards"`
	}
	err = json.NewDecoder(resp.Body).Decode(&gb)
	resp.Body.Close()
	if err != nil || gb.Shards != 3 {
		t.Errorf("GET /gateway/bot shards = %d, %v; want 3", gb.Shards, err)
	}
	resp, err = http.Get(strings.TrimSpace(base) + "/_fake/endpoint")
	if err != nil {
		t.Fatal(err)
	}
	var ep map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&ep)
	resp.Body.Close()
	if ep["url"] != "http://127.0.0.1:1/interactions" || ep["public_key"] != key {
		t.Errorf("GET /_fake/endpoint = %v", ep)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}
