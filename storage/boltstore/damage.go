package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// bbolt panics when it meets a page it cannot read (its assertions on a
// page's ID and type); it never returns such damage as an error. So every
// transaction of this package runs under guard, which turns the panic into
// an error wrapping storage.ErrDamaged that names the file, and Open runs
// bbolt's consistency check (Tx.Check) before anything else reads the file.
// bbolt rolls a transaction back when its function panics, so the file is
// left as it was.

// damagedErr is the error of a damaged file: what is wrong and the way out.
func damagedErr(path string, what any) error {
	return fmt.Errorf("%w: the embedded store %s is damaged (%s): list the damage with `clefs audit -data %s`, "+
		"then restore the newest snapshot or dump (docs/operating.md, \"Backups and recovery\")", storage.ErrDamaged, path, unreadable(what), path)
}

// unreadable words what bbolt says of a page it cannot read, an error or a
// panic's value, without the "panic:" and "assertion failed:" it wraps it in.
func unreadable(what any) string {
	return strings.NewReplacer("panic: ", "", "assertion failed: ", "").Replace(fmt.Sprint(what))
}

// guard recovers a panic of bbolt into *err (see above); deferred by every
// function that runs a transaction.
func guard(path string, err *error) {
	if p := recover(); p != nil {
		*err = damagedErr(path, p)
	}
}

// maxProblems bounds what Check lists: past it the file is beyond listing.
const maxProblems = 1000

// CheckFile reads the whole store file at path read-only (stop the bot, or
// give a snapshot) and calls fn with every damaged page and every record
// that does not decode, up to maxProblems. It returns an error when the
// file cannot be read at all, and Open's storage.ErrLayout, after its
// damaged pages, when an older release wrote it: its records are then not
// this release's to judge.
func CheckFile(path string, fn func(problem string)) (err error) {
	defer guard(path, &err)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	defer db.Close()
	n := 0
	report := func(format string, args ...any) {
		if n++; n <= maxProblems {
			fn(fmt.Sprintf(format, args...))
		}
	}
	return db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			report("pages: bbolt's consistency check: %s", unreadable(err))
		}
		if other := checkLayout(tx); other != "" {
			return layoutErr(path, other)
		}
		for _, name := range allBuckets {
			checkBucket(tx, name, report)
		}
		if n > maxProblems {
			fn(fmt.Sprintf("… and %d more problems", n-maxProblems))
		}
		return nil
	})
}

// checkBucket decodes every record of the bucket name it can name; a page
// that makes bbolt panic ends the walk, reported with the last key read.
func checkBucket(tx *bolt.Tx, name []byte, report func(string, ...any)) {
	var last []byte
	defer func() {
		if p := recover(); p != nil {
			from := "from its first record"
			if last != nil {
				from = fmt.Sprintf("after key %x", last)
			}
			report("bucket %s: its pages are unreadable %s (%s)", name, from, unreadable(p))
		}
	}()
	b := tx.Bucket(name)
	if b == nil {
		report("bucket %s: missing", name)
		return
	}
	_ = b.ForEach(func(k, v []byte) error {
		last = k
		var decode func(record string, v []byte) error // a line of a player's
		switch string(name) {
		case string(bucketPlayers):
			if len(k) != 16 {
				report("bucket players: key %x: not a guild and user", k)
				return nil
			}
			id := storage.PlayerID{Guild: binary.BigEndian.Uint64(k), User: binary.BigEndian.Uint64(k[8:])}
			if r, err := decodePlayer(id, v); err != nil {
				report("player %d/%d: %v", id.Guild, id.User, r.Damaged.Err)
			}
		case string(bucketHistory), string(bucketOthers):
			decode = func(record string, v []byte) error { _, err := schema.DecodeLine(record, v); return err }
		case string(bucketReveals):
			decode = func(record string, v []byte) error { _, err := schema.DecodeReveal(record, v); return err }
		case string(bucketGuilds):
			if len(k) != 8 {
				report("bucket guilds: key %x: not a guild", k)
				return nil
			}
			guild := binary.BigEndian.Uint64(k)
			if _, err := decodeGuild(guild, v); err != nil {
				report("guild %d: %v", guild, err)
			}
		}
		if decode == nil {
			return nil
		}
		if len(k) != 24 {
			report("bucket %s: key %x: not a guild, user and number", name, k)
			return nil
		}
		g, u, n := binary.BigEndian.Uint64(k), binary.BigEndian.Uint64(k[8:]), binary.BigEndian.Uint64(k[16:])
		if err := decode(fmt.Sprintf("key %d/%d/%d of bucket %s", g, u, n, name), v); err != nil {
			report("player %d/%d: %v", g, u, err)
		}
		return nil
	})
}

// checkOnOpen runs bbolt's consistency check and fails on the first
// problem: a damaged file is refused at once rather than panicking later.
func checkOnOpen(db *bolt.DB) error {
	return db.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			if len(errs) < 3 {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}
