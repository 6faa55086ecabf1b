package boltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Snapshots are named clefs-<UTC time>.db, so that they sort by name in
// the order they were taken; one being written is a hidden .tmp file
// that never matches, so a crash never leaves a half snapshot that looks
// whole.
const (
	snapshotPrefix = "clefs-"
	snapshotSuffix = ".db"
	snapshotTime   = "20060102T150405.000Z"
	snapshotTemp   = ".clefs-snapshot-*.tmp"
)

// Snapshot writes a consistent copy of the whole store into the folder dir
// (created if missing) while the store goes on serving, as
// clefs-<now, UTC>.db, whole or not at all, and keeps only the newest keep
// snapshots (keep < 1: all). It returns the snapshot's path, a store file
// that clefs export and audit read while the bot runs.
func (s *Store) Snapshot(ctx context.Context, dir string, keep int, now time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("boltstore: snapshot: %w", err)
	}
	removeTemps(dir)
	f, err := os.CreateTemp(dir, snapshotTemp) // mode 0600
	if err != nil {
		return "", fmt.Errorf("boltstore: snapshot: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	err = s.view(ctx, "snapshot", func(tx *bolt.Tx) error {
		_, err := tx.WriteTo(f)
		return err
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	name := snapshotPrefix + now.UTC().Format(snapshotTime)
	if err == nil {
		err = markSnapshot(tmp, "restore-"+name)
	}
	if err != nil {
		return "", fmt.Errorf("boltstore: snapshot to %s: %w", dir, err)
	}
	path := filepath.Join(dir, name+snapshotSuffix)
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("boltstore: snapshot: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("boltstore: snapshot %s: %w", path, err)
	}
	if err := prune(dir, keep); err != nil {
		return path, fmt.Errorf("boltstore: snapshot %s taken, but removing the oldest ones failed: %w", path, err)
	}
	return path, nil
}

// markSnapshot records in the copy at path the restore it needs before the
// bot serves it (storage.Restorer), and syncs it.
func markSnapshot(path, id string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(restoreKey, []byte(id)) })
	return errors.Join(err, db.Close())
}

// Restoring implements storage.Restorer.
func (s *Store) Restoring(ctx context.Context) (id string, err error) {
	err = s.view(ctx, "restore", func(tx *bolt.Tx) error {
		id = string(tx.Bucket(bucketMeta).Get(restoreKey))
		return nil
	})
	return id, err
}

// SetRestoring implements storage.Restorer.
func (s *Store) SetRestoring(ctx context.Context, id string) error {
	return s.batch(ctx, "restore", func(tx *bolt.Tx) error {
		if id == "" {
			return tx.Bucket(bucketMeta).Delete(restoreKey)
		}
		return tx.Bucket(bucketMeta).Put(restoreKey, []byte(id))
	})
}

// Guilds implements storage.Restorer.
func (s *Store) Guilds(ctx context.Context) (gs []uint64, err error) {
	err = s.view(ctx, "guilds", func(tx *bolt.Tx) error { gs = guildsOf(tx.Bucket(bucketPlayers)); return nil })
	return gs, err
}

// Snapshots returns the snapshots of dir, oldest first.
func Snapshots(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("boltstore: snapshots: %w", err)
	}
	var paths []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, snapshotPrefix) || !strings.HasSuffix(name, snapshotSuffix) {
			continue
		}
		if _, err := time.Parse(snapshotTime, strings.TrimSuffix(strings.TrimPrefix(name, snapshotPrefix), snapshotSuffix)); err != nil {
			continue // not one of ours
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	slices.Sort(paths) // the names sort by time
	return paths, nil
}

func prune(dir string, keep int) error {
	if keep < 1 {
		return nil
	}
	paths, err := Snapshots(dir)
	if err != nil {
		return err
	}
	for _, p := range paths[:max(len(paths)-keep, 0)] { // the oldest first
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// removeTemps removes what an interrupted Snapshot left: only one process
// serves a store file, so no other snapshot is being written.
func removeTemps(dir string) {
	temps, _ := filepath.Glob(filepath.Join(dir, snapshotTemp))
	for _, t := range temps {
		_ = os.Remove(t)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
