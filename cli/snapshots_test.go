package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
)

// TestSnapshotsUnderLoad takes snapshots of the embedded store while
// players play on it, then, with the store still open (the bot running),
// audits every snapshot kept and exports the last: each is a whole,
// consistent store, and the snapshot taken after the run dumps exactly as
// the store does.
func TestSnapshotsUnderLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "clefs.db")
	backups := filepath.Join(dir, "backups")
	st := openStore(t, "", path)
	defer st.Close()

	// A temporary file left by a snapshot that a crash interrupted.
	if err := os.MkdirAll(backups, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(backups, ".clefs-snapshot-42.tmp")
	writeAt(t, stale, []byte("half a snapshot"))

	var taken, failed atomic.Int64
	var clock atomic.Int64 // one second per snapshot, so that names never collide
	now := func() time.Time { return time.Date(2026, 12, 3, 10, 0, int(clock.Add(1)), 0, time.UTC) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		takeSnapshots(ctx, st, backups, time.Millisecond, 3, now, func(ok bool, _ time.Time) {
			if ok {
				taken.Add(1)
			} else {
				failed.Add(1)
			}
		}, slog.New(slog.DiscardHandler))
	}()
	randomRun(t, st, 5, 500)
	for taken.Load() < 4 { // the run may be faster than the snapshots
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if failed.Load() != 0 {
		t.Fatalf("%d snapshots failed", failed.Load())
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the interrupted snapshot's temporary file is still there: %v", err)
	}
	snaps, err := boltstore.Snapshots(backups)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots kept after %d taken, want the newest 3: %v", len(snaps), taken.Load(), snaps)
	}
	if fi, err := os.Stat(backups); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("backups folder: %v, %v; want mode 0700", fi.Mode(), err)
	}
	for _, snap := range snaps {
		if fi, err := os.Stat(snap); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", snap, fi.Mode(), err)
		}
		out, _, err := runCLI(t, "audit", "-data", snap)
		if err != nil || !strings.Contains(out, " 0 breaches") {
			t.Errorf("audit of the snapshot %s taken under load: %q, %v", snap, out, err)
		}
	}

	// One more, after the run: it holds exactly what the store holds.
	last, err := st.(snapshotter).Snapshot(context.Background(), backups, 3, now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "export", "-data", path); err == nil {
		t.Fatal("export of the open store's file succeeded: the store should be locked while the bot runs")
	}
	st.Close()
	want := mustCLI(t, "export", "-data", path)
	got := mustCLI(t, "export", "-data", last)
	if got != want {
		t.Errorf("the snapshot's dump differs from the store's: %s", firstDiff(got, want))
	}
}

// panickingStore's snapshots panic, as a bug in a store would.
type panickingStore struct{ storage.Store }

func (panickingStore) Snapshot(context.Context, string, int, time.Time) (string, error) {
	panic("snapshot exploded")
}

// TestSnapshotPanicIsAFailure: a panic while taking a snapshot is counted
// and logged as a failed snapshot, and the next ones are still taken: the
// snapshots' goroutine recovers, once, where it runs.
func TestSnapshotPanicIsAFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var failed atomic.Int64
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	takeSnapshots(ctx, panickingStore{}, t.TempDir(), time.Millisecond, 3, time.Now, func(ok bool, _ time.Time) {
		if !ok && failed.Add(1) == 3 {
			cancel()
		}
	}, log)
	if failed.Load() < 3 || !strings.Contains(logs.String(), "snapshot exploded") {
		t.Fatalf("%d failures; logs:\n%s", failed.Load(), logs.String())
	}
}
