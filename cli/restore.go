package cli

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// runRestore makes a store put back from a copy fit to serve: every
// player's server seeds may have drawn tickets after the copy was taken,
// so each is revealed and replaced (game.Restore) under the restore's ID
// recorded in the store, so that a restore run again rotates nobody twice.
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("restore", stderr, "Usage: clefs restore [-redis URL | -data FILE] [-from SNAPSHOT]\n\nMakes a store put back from a copy (a snapshot, a Redis RDB or AOF) fit\nto serve: every player's server seeds, which may have drawn tickets after\nthe copy was taken, are revealed and replaced. Stop the bot first; the bot\nrefuses a snapshot until this has run. Run it again if it was stopped: it\ngoes on where it was.\n\n"+storeUsage+"\n\n")
	var sf storeFlags
	sf.register(fs)
	from := fs.String("from", "", "copy this snapshot `FILE` (BACKUP_DIR/clefs-….db) to the embedded store's file, which must not exist, first")
	if err := parseFlags(fs, "restore", args, 0); err != nil {
		return err
	}
	mode, copied := mustExist, false
	if *from != "" {
		mode, sf.checkFile = mayCreate, func(path string) error {
			copied = true
			return copySnapshot(*from, path)
		}
	}
	st, _, err := sf.open(ctx, mode, stderr)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer st.Close()
	if *from != "" && !copied {
		return usageError{"restore: -from puts a snapshot in place of the embedded store, not of Redis"}
	}
	return restore(ctx, st, rand.Reader, time.Now(), stdout)
}

// copySnapshot copies the snapshot from to path, which must not exist.
func copySnapshot(from, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("the file exists: move it aside first (mv %s %s.damaged), never delete it", path, path)
	}
	src, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer src.Close()
	return writeFileAtomic(path, false, func(w io.Writer) error { _, err := io.Copy(w, src); return err })
}

// restore reveals and replaces the server seeds of every player of st
// under the restore pending (a new one, at now, if none), and ends it; 32
// players at a time (the embedded store shares their commits).
func restore(ctx context.Context, st storage.Store, seeds io.Reader, now time.Time, stdout io.Writer) error {
	rs, ok := st.(storage.Restorer)
	if !ok {
		return fmt.Errorf("restore: store %T cannot be restored", st)
	}
	op, err := rs.Restoring(ctx)
	if err == nil && op == "" {
		op = "restore-" + now.UTC().Format("20060102T150405.000Z")
		err = rs.SetRestoring(ctx, op)
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	var mu sync.Mutex
	var done, again, skipped int
	eg, ectx := errgroup.WithContext(ctx) // the first error stops the players under way
	eg.SetLimit(32)
	one := func(id storage.PlayerID) error {
		seed, err1 := game.NewSeed(seeds)
		next, err2 := game.NewSeed(seeds)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		a, err := st.Run(ectx, storage.Step{ID: id, Op: op, Move: game.Restore{Seed: seed, Next: next}, Seeds: seeds, Now: storage.Timestamp(now)})
		mu.Lock()
		defer mu.Unlock()
		switch {
		case errors.Is(err, storage.ErrDamaged), errors.Is(err, storage.ErrNoPlayer):
			fmt.Fprintf(stdout, "player %d/%d skipped: %v\n", id.Guild, id.User, err)
			skipped++
		case err != nil:
			return fmt.Errorf("player %d/%d: %w", id.Guild, id.User, err)
		case a.Repeated:
			again++
		default:
			done++
		}
		return nil
	}
	guilds, err := rs.Guilds(ctx)
	for _, g := range guilds {
		if err = st.Players(ectx, g, func(u uint64) error {
			eg.Go(func() error { return one(storage.PlayerID{Guild: g, User: u}) })
			return ectx.Err()
		}); err != nil {
			break
		}
	}
	if err = cmp.Or(eg.Wait(), err); err == nil {
		err = rs.SetRestoring(ctx, "")
	}
	fmt.Fprintf(stdout, "restore %s: %d players' server seeds revealed and replaced, %d already before, %d skipped\n", op, done, again, skipped)
	if err != nil {
		return fmt.Errorf("restore %s stopped (run clefs restore again to go on): %w", op, err)
	}
	return nil
}
