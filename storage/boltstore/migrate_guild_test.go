package boltstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// TestMigrateGuildRecords opens a file holding a guild and its moderator
// log as the release before the schema wrote them (the golden files of
// package legacy): Open rewrites them once in the schema, the guild keeps
// its version, the log its lines in order, and the guild takes its next
// write.
func TestMigrateGuildRecords(t *testing.T) {
	guildRec, err := os.ReadFile("../legacy/testdata/bolt-guild.json")
	if err != nil {
		t.Fatal(err)
	}
	auditLines, err := os.ReadFile("../legacy/testdata/bolt-audit.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(auditLines), []byte("\n"))
	const guild = 4242
	wantVersion, want, err := legacy.DecodeBoltGuild(guildRec, game.DefaultHouse)
	if err != nil {
		t.Fatal(err)
	}
	var wantAudit []game.AuditEntry // newest first, as Audit returns them
	for i := len(lines) - 1; i >= 0; i-- {
		e, _, err := legacy.DecodeAudit(guild, lines[i])
		if err != nil {
			t.Fatal(err)
		}
		wantAudit = append(wantAudit, e)
	}
	path := filepath.Join(t.TempDir(), "clefs.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		for i, l := range lines {
			if err := tx.Bucket(bucketAudit).Put(seqKey(guildKey(guild), uint64(i+1)), l); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketGuilds).Put(guildKey(guild), guildRec)
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := Open(path, storage.Options{Defaults: game.Settings{House: game.DefaultHouse}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	g, err := st.Guild(ctx, guild)
	if err != nil || g.Version != wantVersion || !reflect.DeepEqual(g.Guild, want) {
		t.Fatalf("migrated guild %+v, %v; want version %d, %+v", g, err, wantVersion, want)
	}
	audit, err := st.Audit(ctx, guild, 10)
	if err != nil || !reflect.DeepEqual(audit, wantAudit) {
		t.Fatalf("migrated log %+v, %v; want %+v", audit, err, wantAudit)
	}
	// Every value is now in the schema, nothing of the old form is left.
	if err := st.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketGuilds).Get(guildKey(guild))
		if legacy.IsBoltGuild(v) {
			t.Errorf("the guild is still in the old form: %s", v)
		}
		return tx.Bucket(bucketAudit).ForEach(func(k, v []byte) error {
			if legacy.IsAudit(v) {
				t.Errorf("audit line %x still in the old form: %s", k, v)
			}
			if _, _, err := schema.DecodeAudit("line", guild, v); err != nil {
				t.Error(err)
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	// It plays on: the next settings change writes the next version and
	// logs after the old lines.
	next := g.Settings
	next.DailyAmount++
	now := time.Now()
	up, err := st.UpdateGuild(ctx, guild, func(cur storage.VersionedGuild) (storage.GuildWrite, error) {
		s, _, err := game.ApplyGuild(cur.Guild, "after-migration", func(g game.Guild) (game.GuildStep, error) {
			return g.SetSettings(next, 5, "after", now)
		})
		return storage.GuildWrite{Guild: s.Guild, Audit: s.Audit}, err
	})
	if err != nil || up.Version != wantVersion+1 || up.Settings != next {
		t.Fatalf("update after migration: %+v, %v", up, err)
	}
	audit, err = st.Audit(ctx, guild, 10)
	if err != nil || len(audit) != len(lines)+1 || audit[0].Reason != "after" {
		t.Fatalf("log after the update: %+v, %v", audit, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// A second Open finds nothing to rewrite.
	st, err = Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if g, err := st.Guild(ctx, guild); err != nil || g.Version != wantVersion+1 {
		t.Fatalf("reopened guild %+v, %v", g, err)
	}
}
