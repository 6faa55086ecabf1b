package redisstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// playerRecord is the payload of p:{guild:user} (its field p; the version
// is the field v, which the script compares without parsing JSON).
type playerRecord struct {
	Player game.Player
	// Audit is the moderator log line of the write that made this version,
	// "" if none. It is appended to a:{guild} after the write succeeds; it
	// stays here so that a retry of the same operation can append it if
	// that failed (see recoverAudit).
	Audit string `json:",omitempty"`
	// Write is a random token of the write that made this version, so that
	// a conflict on a record byte-identical to ours (go-redis sent the
	// script twice and the first copy ran) is told apart from another
	// writer's identical write.
	Write string `json:",omitempty"`
}

// guildRecord is the payload of s:{guild}: game.Guild's fields, Reset
// only once the guild has had a reset-guild.
type guildRecord struct {
	Settings game.Settings
	Ops      []string         `json:",omitempty"`
	Reset    *game.GuildReset `json:",omitempty"`
	Audit    string           `json:",omitempty"` // as playerRecord.Audit
}

// auditLine is the JSON form of an audit entry in a:{guild}. ID names the
// write that logged it (u:<user>:<version> or s:<version>), so that the
// same line sent twice is recognised and kept once.
type auditLine struct {
	ID     string    `json:"id,omitempty"`
	At     time.Time `json:"at"`
	Actor  uint64    `json:"actor,string"`
	Target uint64    `json:"target,string"`
	Action string    `json:"action"`
	Amount int64     `json:"amount"`
	Reason string    `json:"reason"`
}

// recoverWindow bounds how old a moderator log line may be for a retry to
// append it again (recoverAudit): older lines may have left the log (it
// keeps storage.AuditLimit), and appending them then would log them twice.
const recoverWindow = 24 * time.Hour

// decodeStrict parses a payload, refusing fields it does not know: a
// record written by a newer game.Player must not be read, and written
// back, without them.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// stored is a player's record as read from Redis.
type stored struct {
	storage.Versioned
	audit string // playerRecord.Audit
}

// decodePlayer parses the fields v and p of a record ("" and "" or nil
// when it does not exist).
func decodePlayer(id storage.PlayerID, v, p any) (stored, error) {
	vs, _ := v.(string)
	ps, _ := p.(string)
	if vs == "" || vs == "0" {
		return stored{}, nil
	}
	ver, err := strconv.ParseUint(vs, 10, 64)
	if err != nil {
		return stored{}, fmt.Errorf("player %d/%d: version %q: %w", id.Guild, id.User, vs, err)
	}
	var r playerRecord
	if err := decodeStrict([]byte(ps), &r); err != nil {
		return stored{}, fmt.Errorf("player %d/%d: corrupt record: %w", id.Guild, id.User, err)
	}
	return stored{Versioned: storage.Versioned{Player: r.Player, Version: ver}, audit: r.Audit}, nil
}

// Load returns the player's state and version (0 if never written). It
// reads Redis, never the cache, and refreshes the cache.
func (s *Store) Load(ctx context.Context, id storage.PlayerID) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	if s.closed.Load() {
		return storage.Versioned{}, storage.ErrClosed
	}
	st, err := s.load(ctx, id)
	return st.Versioned, err
}

func (s *Store) load(ctx context.Context, id storage.PlayerID) (stored, error) {
	vals, err := s.rdb.HMGet(ctx, recordKey(id), "v", "p").Result()
	if err != nil {
		return stored{}, s.wrap(fmt.Sprintf("load %d/%d", id.Guild, id.User), err)
	}
	st, err := decodePlayer(id, vals[0], vals[1])
	if err != nil {
		return stored{}, fmt.Errorf("redisstore: load: %w", err)
	}
	s.cache.put(id, st)
	return st, nil
}

// Update implements storage.Store.
//
// The usual step is one round trip: the compare-and-set script on the
// player's slot and the leaderboard's ZADD on the guild's, in one pipeline,
// with the version and state this process last wrote (the cache). On a
// conflict the script returns the record as it is and fn runs again on it.
// When fn fails or skips on a cached state, Update reads the player to be
// sure before returning fn's answer. A moderator's action takes a second
// round trip, after the write, to append the audit entry.
//
// Every write to Redis is safe to repeat, because go-redis resends a
// command whose reply timed out: the script's compare-and-set refuses a
// second write of the same version (and Update recognises its own write in
// the record the script returns), ZADD sets an absolute balance, and the
// audit line carries the ID of the write it logs. See the package
// documentation for the index's failure cases.
func (s *Store) Update(ctx context.Context, id storage.PlayerID, fn func(storage.Versioned) (storage.Write, error)) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	if s.closed.Load() {
		return storage.Versioned{}, storage.ErrClosed
	}
	defer s.locks.lock(id)()
	cur, ok := s.cache.get(id)
	if !ok {
		var err error
		if cur, err = s.load(ctx, id); err != nil {
			return storage.Versioned{}, err
		}
	}
	verified := !ok  // cur was read from Redis, not guessed from the cache
	indexed := false // a ZADD went with a write that may not have happened
	for attempt := 0; ; {
		w, err := fn(cur.Versioned)
		if err != nil || w.Skip {
			if !verified {
				fresh, lerr := s.load(ctx, id)
				if lerr != nil {
					return cur.Versioned, lerr
				}
				verified = true
				if fresh.Version != cur.Version {
					cur = fresh
					continue
				}
				cur.audit = fresh.audit
			}
			if indexed {
				s.correctIndex(ctx, id, cur.Versioned)
			}
			if err == nil {
				s.recoverAudit(ctx, id.Guild, cur.audit)
			}
			return cur.Versioned, err
		}
		attempt++
		next := cur.Version + 1
		if w, err = storage.Normalize(id, w); err != nil {
			return cur.Versioned, err
		}
		payload, line, hist, err := encodeWrite(id, next, w)
		if err != nil {
			return cur.Versioned, err
		}
		prev := cur.audit
		res, err := s.cas(ctx, recordKey(id), historyKey(id), cur.Version, payload, storage.HistoryLimit, hist,
			func(p redis.Pipeliner) {
				if s.replicas > 0 {
					p.Do(ctx, "WAIT", s.replicas, 1000) // after the script: its write reaches a replica
				}
				p.ZAdd(ctx, boardKey(id.Guild), redis.Z{Score: score(w.Player.Balance), Member: member(id.User)})
				if recent(prev) {
					// The line of the version this write replaces, in case
					// its Update failed before appending it. EVAL, not
					// EVALSHA: a NOSCRIPT here would not be retried.
					appendOnceScript.Eval(ctx, p, []string{auditKey(id.Guild)}, prev, storage.AuditLimit)
				}
			})
		indexed = true
		if err != nil {
			// The write may or may not have happened: forget the guess.
			s.cache.drop(id)
			return cur.Versioned, s.wrap(fmt.Sprintf("update %d/%d", id.Guild, id.User), err)
		}
		if res.ok || (res.version == u64(next) && res.payload == payload) {
			// Written; by an earlier attempt of go-redis's when the
			// payload is ours, whose reply was lost.
			out := storage.Versioned{Player: w.Player, Version: next}
			s.cache.put(id, stored{Versioned: out, audit: line})
			if line != "" {
				if err := s.appendAudit(ctx, id.Guild, line); err != nil {
					return out, err
				}
			}
			return out, nil
		}
		if cur, err = decodePlayer(id, res.version, res.payload); err != nil {
			return cur.Versioned, fmt.Errorf("redisstore: update: %w", err)
		}
		verified = true
		if attempt == storage.MaxAttempts {
			s.correctIndex(ctx, id, cur.Versioned)
			return cur.Versioned, fmt.Errorf("redisstore: update %d/%d: %w", id.Guild, id.User, storage.ErrConflict)
		}
		// Many writers on one player: wait a random moment, longer after
		// each conflict, so that they stop colliding.
		select {
		case <-time.After(mrand.N(time.Duration(min(attempt, 16)) * 2 * time.Millisecond)):
		case <-ctx.Done():
			s.correctIndex(context.WithoutCancel(ctx), id, cur.Versioned)
			return cur.Versioned, s.wrap(fmt.Sprintf("update %d/%d", id.Guild, id.User), ctx.Err())
		}
	}
}

// encodeWrite returns the payload of w as version next of the player, its
// audit line ("" if none) and its history lines, oldest first.
func encodeWrite(id storage.PlayerID, next uint64, w storage.Write) (payload, line string, hist []string, err error) {
	if w, err = storage.Normalize(id, w); err != nil {
		return "", "", nil, err
	}
	if w.Audit != nil {
		if line, err = encodeAudit(fmt.Sprintf("u:%d:%d", id.User, next), *w.Audit); err != nil {
			return "", "", nil, err
		}
	}
	b, err := json.Marshal(playerRecord{Player: w.Player, Audit: line, Write: rand.Text()})
	if err != nil {
		return "", "", nil, fmt.Errorf("redisstore: update %d/%d: encode: %w", id.Guild, id.User, err)
	}
	hist = make([]string, len(w.History))
	for i, h := range w.History {
		hb, err := json.Marshal(h)
		if err != nil {
			return "", "", nil, fmt.Errorf("redisstore: update %d/%d: encode history: %w", id.Guild, id.User, err)
		}
		hist[i] = string(hb)
	}
	return string(b), line, hist, nil
}

// encodeAudit encodes an entry that storage.NormalizeAudit has checked.
func encodeAudit(lineID string, e game.AuditEntry) (string, error) {
	b, err := json.Marshal(auditLine{ID: lineID, At: e.At, Actor: e.Actor, Target: e.Target, Action: e.Action, Amount: e.Amount, Reason: e.Reason})
	if err != nil {
		return "", fmt.Errorf("redisstore: encode audit entry: %w", err)
	}
	return string(b), nil
}

func decodeAudit(guild uint64, raw string) (game.AuditEntry, error) {
	var l auditLine
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		return game.AuditEntry{}, fmt.Errorf("corrupt audit line %q: %w", raw, err)
	}
	return game.AuditEntry{At: l.At, Guild: guild, Actor: l.Actor, Target: l.Target, Action: l.Action, Amount: l.Amount, Reason: l.Reason}, nil
}

// casResult is the script's answer.
type casResult struct {
	ok               bool
	version, payload string // the record as it is, on a conflict
}

// cas runs the script on record (and list, when there are lines), with
// also's commands in the same pipeline: one round trip. If Redis has lost
// the script it sends the pipeline again with EVAL; also's commands must
// therefore be safe to repeat.
func (s *Store) cas(ctx context.Context, record, list string, expected uint64, payload string, limit int, lines []string, also func(redis.Pipeliner)) (casResult, error) {
	keys := []string{record}
	args := make([]any, 0, 4+len(lines))
	args = append(args, u64(expected), u64(expected+1), payload, limit)
	if len(lines) > 0 {
		keys = append(keys, list)
		for _, l := range lines {
			args = append(args, l)
		}
	}
	var cmd *redis.Cmd
	run := func(eval bool) error {
		pipe := s.rdb.Pipeline()
		if eval {
			cmd = casScript.Eval(ctx, pipe, keys, args...)
		} else {
			cmd = casScript.EvalSha(ctx, pipe, keys, args...)
		}
		if also != nil {
			also(pipe)
		}
		// Only the script's outcome matters: also's commands are
		// repaired later if they fail (see the package documentation).
		_, _ = pipe.Exec(ctx)
		return cmd.Err()
	}
	err := run(false)
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		err = run(true)
	}
	if err != nil {
		return casResult{}, err
	}
	reply, err := cmd.StringSlice()
	if err != nil {
		return casResult{}, fmt.Errorf("script reply: %w", err)
	}
	switch {
	case len(reply) == 1 && reply[0] == "OK":
		return casResult{ok: true}, nil
	case len(reply) == 3 && reply[0] == "CONFLICT":
		return casResult{version: reply[1], payload: reply[2]}, nil
	}
	return casResult{}, fmt.Errorf("script reply %q", reply)
}

// appendAudit appends line to the guild's moderator log unless it is
// there already (appendOnceScript).
func (s *Store) appendAudit(ctx context.Context, guild uint64, line string) error {
	err := appendOnceScript.Run(ctx, s.rdb, []string{auditKey(guild)}, line, storage.AuditLimit).Err()
	return s.wrap(fmt.Sprintf("append to the moderator log of guild %d", guild), err)
}

// recoverAudit appends the audit line of the record's last write, if any,
// unless the log has it: an Update that skips is a repeated operation, and
// a repeat may follow a write whose Update failed before appending its
// line (Redis stalled past go-redis's retries, the process died). Lines
// older than recoverWindow are left alone. Errors are dropped: the log is
// a record for moderators, and the step itself succeeded.
func (s *Store) recoverAudit(ctx context.Context, guild uint64, line string) {
	if recent(line) {
		_ = s.appendAudit(ctx, guild, line)
	}
}

// recent reports whether line is an audit line younger than recoverWindow.
func recent(line string) bool {
	if line == "" {
		return false
	}
	var l auditLine
	return json.Unmarshal([]byte(line), &l) == nil && time.Since(l.At) <= recoverWindow
}

// correctIndex sets the player's leaderboard entry from v, after an Update
// that sent a ZADD with a write that did not happen (a failed
// compare-and-set) and wrote nothing after it. Errors are dropped: the
// entry stays wrong until the player's next write or RebuildIndex.
func (s *Store) correctIndex(ctx context.Context, id storage.PlayerID, v storage.Versioned) {
	if v.Exists() {
		_ = s.rdb.ZAdd(ctx, boardKey(id.Guild), redis.Z{Score: score(v.Player.Balance), Member: member(id.User)}).Err()
	} else {
		_ = s.rdb.ZRem(ctx, boardKey(id.Guild), member(id.User)).Err()
	}
}

// Guild implements storage.Store.
func (s *Store) Guild(ctx context.Context, guild uint64) (storage.VersionedGuild, error) {
	if guild == 0 {
		return storage.VersionedGuild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if s.closed.Load() {
		return storage.VersionedGuild{}, storage.ErrClosed
	}
	g, _, err := s.guild(ctx, guild)
	return g, err
}

// guild reads the guild and the audit line of its last write.
func (s *Store) guild(ctx context.Context, guild uint64) (storage.VersionedGuild, string, error) {
	vals, err := s.rdb.HMGet(ctx, settingsKey(guild), "v", "p").Result()
	if err != nil {
		return storage.VersionedGuild{}, "", s.wrap(fmt.Sprintf("guild %d", guild), err)
	}
	return s.decodeGuild(guild, vals[0], vals[1])
}

func (s *Store) decodeGuild(guild uint64, v, p any) (storage.VersionedGuild, string, error) {
	vs, _ := v.(string)
	ps, _ := p.(string)
	if vs == "" || vs == "0" {
		return storage.VersionedGuild{Guild: game.Guild{Settings: s.opts.Defaults}}, "", nil
	}
	ver, err := strconv.ParseUint(vs, 10, 64)
	if err != nil {
		return storage.VersionedGuild{}, "", fmt.Errorf("redisstore: guild %d: version %q: %w", guild, vs, err)
	}
	// A record written before house rules existed has none: it reads with
	// the defaults' (decoding keeps what the record does not have), as the
	// guild's players would have if its moderators had never set anything
	// (a dump from then imports the same way, see
	// storage.SettingsRecord.House).
	r := guildRecord{Settings: game.Settings{House: s.opts.Defaults.House}}
	if err := decodeStrict([]byte(ps), &r); err != nil {
		return storage.VersionedGuild{}, "", fmt.Errorf("redisstore: guild %d: corrupt settings: %w", guild, err)
	}
	return storage.VersionedGuild{Guild: game.Guild{Settings: r.Settings, Ops: r.Ops, Reset: r.Reset}, Version: ver}, r.Audit, nil
}

// UpdateGuild implements storage.Store: the same compare-and-set as
// Update, on s:{guild}, then the audit entry appended (a second round
// trip). It writes the guild as fn returns it (storage.NormalizeGuild
// checks it): the operations remembered are game's business. Guilds are
// not cached: settings change rarely.
func (s *Store) UpdateGuild(ctx context.Context, guild uint64, fn func(storage.VersionedGuild) (storage.GuildWrite, error)) (storage.VersionedGuild, error) {
	if guild == 0 {
		return storage.VersionedGuild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if s.closed.Load() {
		return storage.VersionedGuild{}, storage.ErrClosed
	}
	cur, audit, err := s.guild(ctx, guild)
	if err != nil {
		return storage.VersionedGuild{}, err
	}
	for attempt := 0; attempt < storage.MaxAttempts; attempt++ {
		w, err := fn(cur)
		if err != nil {
			return cur, err
		}
		if w.Skip {
			s.recoverAudit(ctx, guild, audit)
			return cur, nil
		}
		if w, err = storage.NormalizeGuild(guild, w); err != nil {
			return cur, err
		}
		next := storage.VersionedGuild{Guild: w.Guild, Version: cur.Version + 1}
		line := ""
		if w.Audit != nil {
			if line, err = encodeAudit(fmt.Sprintf("s:%d", next.Version), *w.Audit); err != nil {
				return cur, err
			}
		}
		b, err := json.Marshal(guildRecord{Settings: next.Settings, Ops: next.Ops, Reset: next.Reset, Audit: line})
		if err != nil {
			return cur, fmt.Errorf("redisstore: update guild %d: encode: %w", guild, err)
		}
		res, err := s.cas(ctx, settingsKey(guild), "", cur.Version, string(b), 0, nil, nil)
		if err != nil {
			return cur, s.wrap(fmt.Sprintf("update guild %d", guild), err)
		}
		if res.ok || (res.version == u64(next.Version) && res.payload == string(b)) {
			if line != "" {
				if err := s.appendAudit(ctx, guild, line); err != nil {
					return next, err
				}
			}
			return next, nil
		}
		if cur, audit, err = s.decodeGuild(guild, res.version, res.payload); err != nil {
			return cur, err
		}
	}
	return cur, fmt.Errorf("redisstore: update guild %d: %w", guild, storage.ErrConflict)
}
