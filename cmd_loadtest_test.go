package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadtestUsageErrors(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	for _, args := range [][]string{
		{"-players", "0"},
		{"-store", "sqlite"},
		{"-store", "redis"},
		{"-rounds", "0"},
		{"-duration", "0s"},
		{"-populate", "-1"},
		{"-nosuchflag"},
		{"extra"},
	} {
		var out, errw bytes.Buffer
		err := runLoadtest(context.Background(), args, &out, &errw)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("loadtest %q: err %v (exit %d), want a usage error", args, err, exitCode(err))
		}
	}
}

func TestLoadtestBolt(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	var out, errw bytes.Buffer
	path := filepath.Join(t.TempDir(), "lt.db")
	err := runLoadtest(context.Background(), []string{
		"-data", path, "-players", "4", "-guilds", "2", "-duration", "500ms",
		"-warmup", "0s", "-calibrate", "0s", "-rounds", "1",
	}, &out, &errw)
	if err != nil {
		t.Fatalf("loadtest: %v\n%s", err, errw.String())
	}
	for _, want := range []string{"store: bolt " + path, "cycles/s", "errors 0", "store steps issued directly"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
