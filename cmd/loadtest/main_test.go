package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("-h exits %d, want 0", code)
	}
	if !strings.Contains(errOut.String(), "Usage: go run ./cmd/loadtest") || !strings.Contains(errOut.String(), "-transport") {
		t.Fatalf("-h printed:\n%s", errOut.String())
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-transport", "smoke-signals"},
		{"-duration", "0s"},
		{"extra"},
		{"-bot-process"}, // on bolt
		{"-soak-interactions", "-5"},
		{"-soak-interactions", "1000", "-transport", "http"},                              // the gateway's soak
		{"-soak-interactions", "1000", "-redis", "redis://127.0.0.1:1/0", "-bot-process"}, // the bot in this process
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errOut.String())
		}
	}
}

func TestShortRunJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-transport", "http", "-players", "2", "-duration", "200ms", "-warmup", "0s", "-ceiling=false", "-plays=false", "-activity=false", "-json"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	var rep struct {
		Phases []struct {
			Name   string
			Cycles int64
		}
		Cleanup string
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if len(rep.Phases) != 1 || rep.Phases[0].Name != "http" || rep.Phases[0].Cycles == 0 || !strings.Contains(rep.Cleanup, "removed") {
		t.Fatalf("report %+v", rep)
	}
}

func TestBotProcessDefault(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-redis", "redis://127.0.0.1:1/0"}, true},
		{[]string{"-redis", "redis://127.0.0.1:1/0", "-bot-process=false"}, false},
		{[]string{"-redis", "redis://127.0.0.1:1/0", "-soak-interactions", "1000"}, false},
	} {
		o, err := parse(tt.args, &bytes.Buffer{})
		if err != nil || o.botProcess != tt.want {
			t.Errorf("%q: bot process %v, %v; want %v", tt.args, o.botProcess, err, tt.want)
		}
	}
}

func TestSoakInteractionsExitCode(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-soak-interactions", "200", "-players", "2", "-max-growth", "1000", "-json"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	var rep struct {
		Interactions int64
		EarlyHeap    uint64 `json:"early_heap_bytes"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if rep.Interactions != 200 || rep.EarlyHeap == 0 {
		t.Errorf("report %+v", rep)
	}
}
