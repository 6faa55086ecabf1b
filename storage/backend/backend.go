// Package backend opens the store the configuration asks for: Redis when a
// URL is given, else the embedded file store.
//
//	st, err := backend.Open(ctx, cfg.RedisURL, cfg.DataPath, storage.Options{Defaults: defaults})
//	if err != nil {
//		return err
//	}
//	defer st.Close()
package backend

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

// DefaultDataPath is the embedded store's file when DATA_PATH is unset.
const DefaultDataPath = "./data/clefs.db"

// Open returns the Redis store at redisURL if it is not empty (it must
// answer), else the embedded store at dataPath (DefaultDataPath if empty),
// creating its folder (mode 0700) and file (mode 0600) as needed. opts
// (the guilds' default settings) go to the store, and options to Redis's.
// Both stores also implement storage.Dumper.
func Open(ctx context.Context, redisURL, dataPath string, opts storage.Options, options ...redisstore.Option) (storage.Store, error) {
	if redisURL != "" {
		st, err := redisstore.Open(ctx, redisURL, opts, options...)
		if err != nil {
			return nil, fmt.Errorf("open Redis store: %w", err)
		}
		return st, nil
	}
	dataPath = cmp.Or(dataPath, DefaultDataPath)
	if err := os.MkdirAll(filepath.Dir(dataPath), 0o700); err != nil {
		return nil, fmt.Errorf("open embedded store: %w", err)
	}
	st, err := boltstore.Open(dataPath, opts)
	if err != nil {
		return nil, fmt.Errorf("open embedded store: %w", err)
	}
	return st, nil
}

// Describe names the store Open would choose, for logs and for the
// operator subcommands' "store: …" line, with no secret: the Redis URL
// with its passwords hidden (redisstore.RedactURL), or "embedded file"
// and the file's absolute path.
func Describe(redisURL, dataPath string) string {
	if redisURL != "" {
		return redisstore.RedactURL(redisURL)
	}
	dataPath = cmp.Or(dataPath, DefaultDataPath)
	if abs, err := filepath.Abs(dataPath); err == nil {
		dataPath = abs
	}
	return "embedded file " + dataPath
}
