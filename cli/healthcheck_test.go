package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
	"github.com/lesclefsdutresor/clefs/metrics"
)

func TestHealthcheck(t *testing.T) {
	var down atomic.Bool
	health := func(context.Context) error {
		if down.Load() {
			return errors.New("store: connection refused")
		}
		return nil
	}
	srv := httptest.NewServer(metrics.Handler(metrics.NewRegistry(), health, buildinfo.Info{}, nil))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	// .env names a listener that is not the bot's; the real environment
	// wins over it, even set empty (then the bot serves no /healthz).
	t.Chdir(t.TempDir())
	writeAt(t, ".env", []byte("DISCORD_TOKEN=x\nMETRICS_ADDR="+addr+"\n"))
	tests := []struct {
		name    string
		args    []string
		env     string // "unset": not in the environment
		down    bool
		wantErr string // "" for healthy
	}{
		{"flag", []string{"-addr", addr}, "", false, ""},
		{"METRICS_ADDR", nil, addr, false, ""},
		{"METRICS_ADDR in .env", nil, "unset", false, ""},
		{"flag wins", []string{"-addr", addr}, "127.0.0.1:1", false, ""},
		{"unhealthy", []string{"-addr", addr}, "", true, "store: connection refused"},
		{"nothing listening", []string{"-addr", "127.0.0.1:1"}, "", false, "healthcheck: metrics: probe"},
		{"no address", nil, "", false, "METRICS_ADDR is empty"},
		{"stray argument", []string{"now"}, addr, false, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("METRICS_ADDR", tt.env)
			if tt.env == "unset" {
				os.Unsetenv("METRICS_ADDR") // t.Setenv restores it
			}
			down.Store(tt.down)
			var stdout, stderr bytes.Buffer
			err := Main(context.Background(), append([]string{"healthcheck"}, tt.args...), &stdout, &stderr)
			if tt.wantErr == "" {
				if err != nil || stdout.String() != "healthy\n" {
					t.Errorf("err = %v, stdout = %q; want nil, \"healthy\"", err, stdout.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || tt.name == "no address" && !strings.Contains(err.Error(), "-addr") {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
			if code := ExitCode(err); tt.name != "stray argument" && code != 1 {
				t.Errorf("exit code %d, want 1 (Docker treats 1 as unhealthy; 2 is reserved)", code)
			}
		})
	}
}
