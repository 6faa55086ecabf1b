package boltstore

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// migrate rewrites, in tx, every record that the release before the
// schema wrote (package legacy) in the schema: each gob player becomes a
// player record, its revealed seeds and remembered operations move beside
// it, its JSON history lines are rewritten as schema lines, and so are the
// guild records and moderator log lines (migrateGuilds). It returns how
// many players it rewrote; a file with none to rewrite is not changed.
// A record that cannot be read is an error that names it, and the whole
// transaction is rolled back.
func migrate(tx *bolt.Tx, house game.House) (int, error) {
	var olds [][]byte // keys of legacy players
	c := tx.Bucket(bucketPlayers).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(v) > 0 && v[0] != '{' {
			olds = append(olds, bytes.Clone(k))
		}
	}
	for _, k := range olds {
		id := storage.PlayerID{Guild: binary.BigEndian.Uint64(k), User: binary.BigEndian.Uint64(k[8:])}
		if err := migratePlayer(tx, id); err != nil {
			return 0, fmt.Errorf("migrate player %d/%d: %w", id.Guild, id.User, err)
		}
	}
	if err := migrateGuilds(tx, house); err != nil {
		return 0, err
	}
	return len(olds), nil
}

// migrateGuilds rewrites in the schema, in tx, every guild record and
// moderator log line written before it (Go-named JSON, package legacy). A
// guild keeps its version; a record without house rules gets house, the
// store's default ones, as its players had.
func migrateGuilds(tx *bolt.Tx, house game.House) error {
	type kv struct{ k, v []byte }
	var guilds, lines []kv
	gb, ab := tx.Bucket(bucketGuilds), tx.Bucket(bucketAudit)
	if err := gb.ForEach(func(k, v []byte) error {
		if legacy.IsBoltGuild(v) {
			guilds = append(guilds, kv{bytes.Clone(k), bytes.Clone(v)})
		}
		return nil
	}); err != nil {
		return err
	}
	if err := ab.ForEach(func(k, v []byte) error {
		if legacy.IsAudit(v) {
			lines = append(lines, kv{bytes.Clone(k), bytes.Clone(v)})
		}
		return nil
	}); err != nil {
		return err
	}
	for _, r := range guilds {
		guild := binary.BigEndian.Uint64(r.k)
		version, g, err := legacy.DecodeBoltGuild(r.v, house)
		if err != nil {
			return fmt.Errorf("migrate guild %d: %w", guild, err)
		}
		if err := putGuild(tx, guild, g, version); err != nil {
			return fmt.Errorf("migrate guild %d: %w", guild, err)
		}
	}
	for _, l := range lines {
		guild := binary.BigEndian.Uint64(l.k)
		e, _, err := legacy.DecodeAudit(guild, l.v)
		if err != nil {
			return fmt.Errorf("migrate audit line %x: %w", l.k, err)
		}
		b, err := schema.EncodeAudit(guild, "", e)
		if err != nil {
			return fmt.Errorf("migrate audit line %x: %w", l.k, err)
		}
		if err := ab.Put(l.k, b); err != nil {
			return fmt.Errorf("migrate audit line %x: %w", l.k, err)
		}
	}
	return nil
}

func migratePlayer(tx *bolt.Tx, id storage.PlayerID) error {
	pk := playerKey(id)
	old, err := legacy.DecodeBolt(tx.Bucket(bucketPlayers).Get(pk))
	if err != nil {
		return err
	}
	m, err := old.Player.Migrate()
	if err != nil {
		return err
	}
	rec, err := encodePlayer(playerRec{Version: old.Version, Player: m.Player})
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketPlayers).Put(pk, rec); err != nil {
		return err
	}
	for _, r := range m.Reveals {
		r.CommittedAt, r.RevealedAt = storage.Timestamp(r.CommittedAt), storage.Timestamp(r.RevealedAt)
		b, err := schema.EncodeReveal(r)
		if err != nil {
			return err
		}
		if _, err := appendCapped(tx.Bucket(bucketReveals), pk, b, game.MaxReveals); err != nil {
			return err
		}
	}
	for _, o := range m.Ops {
		b, err := schema.EncodeResult(o.Result)
		if err != nil {
			return err
		}
		if err := rememberOp(tx, id, o.ID, b); err != nil {
			return err
		}
	}
	hb := tx.Bucket(bucketHistory)
	type line struct{ k, v []byte }
	var lines []line
	hc := hb.Cursor()
	for k, v := hc.Seek(pk); k != nil && bytes.HasPrefix(k, pk); k, v = hc.Next() {
		if legacy.IsEntry(v) {
			lines = append(lines, line{bytes.Clone(k), bytes.Clone(v)})
		}
	}
	for _, l := range lines {
		e, err := legacy.DecodeEntry(l.v)
		if err != nil {
			return fmt.Errorf("history line %x: %w", l.k, err)
		}
		e.At = storage.Timestamp(e.At)
		b, err := schema.EncodeLine(e)
		if err != nil {
			return err
		}
		if err := hb.Put(l.k, b); err != nil {
			return err
		}
	}
	return nil
}
