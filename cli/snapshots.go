package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/lesclefsdutresor/clefs/storage"
)

// snapshotter is a store that can copy itself while it serves (boltstore).
type snapshotter interface {
	Snapshot(ctx context.Context, dir string, keep int, now time.Time) (string, error)
}

// takeSnapshots snapshots store into dir every interval, the first at
// once, keeping the newest keep, until ctx ends; each result is logged and
// counted (done).
func takeSnapshots(ctx context.Context, store storage.Store, dir string, interval time.Duration, keep int,
	now func() time.Time, done func(ok bool, at time.Time), log *slog.Logger) {
	s, ok := store.(snapshotter)
	if !ok {
		log.Error("BACKUP_DIR is set but this store takes no snapshots", "dir", dir)
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		start := now()
		path, err := snapshot(ctx, s, dir, keep, start)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && path == "":
			log.Error("snapshot failed", "dir", dir, "err", err)
			done(false, start)
		case err != nil: // taken, but the oldest ones could not be removed
			log.Warn("snapshot taken, cleanup failed", "path", path, "err", err)
			done(true, start)
		default:
			log.Info("snapshot taken", "path", path, "took", now().Sub(start).Round(time.Millisecond))
			done(true, start)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// snapshot takes one snapshot; a panic is its error: one bad snapshot must
// neither end the process nor stop the next ones.
func snapshot(ctx context.Context, s snapshotter, dir string, keep int, at time.Time) (path string, err error) {
	defer func() {
		if p := recover(); p != nil {
			path, err = "", fmt.Errorf("panic: %v", p)
		}
	}()
	return s.Snapshot(ctx, dir, keep, at)
}
