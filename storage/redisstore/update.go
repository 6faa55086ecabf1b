package redisstore

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/legacy"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// A guild is the hash s:{guild}: its version v, its record p in the
// schema (schema.GuildRecord, docs/STORAGE.md) and the moderator log line
// a of its last write (for recoverAudit). A record of the release before
// the schema (package legacy) is rewritten at its first read
// (migrateGuild).
//
// The moderator log a:{guild} holds lines in the schema (schema.AuditLine)
// whose id names the write that logged them (u:<user>:<version> or
// s:<version>), so that the same line sent twice is recognised and kept
// once. Lines of the release before the schema are read as they are
// (legacy.DecodeAudit) and never rewritten: appendOnceScript recognises a
// line by its bytes, so a rewritten line could be appended again by a
// retry that carries its old bytes (a record's a field not yet migrated),
// and the old lines leave the log by themselves, storage.AuditLimit lines
// later.

// recoverWindow bounds how old a moderator log line may be for a retry to
// append it again (recoverAudit): older lines may have left the log (it
// keeps storage.AuditLimit), and appending them then would log them twice.
const recoverWindow = 24 * time.Hour

// stored is a player's record as read from Redis.
type stored struct {
	storage.Versioned
	audit string // the field a: the moderator log line of the last write
}

// raw is a player's record as Redis returned it: the fields v, p, s and a
// (nil or "" when absent) and, when asked, the result of an operation.
type raw struct {
	v, p, s, a any
	op         any
}

func str(x any) string { s, _ := x.(string); return s }

// decodePlayer parses a record that is in the schema; legacy reports a
// record of the release before it, which the caller migrates.
func decodePlayer(id storage.PlayerID, r raw) (st stored, legacyRec bool, err error) {
	vs, ps := str(r.v), str(r.p)
	if vs == "" || vs == "0" {
		return stored{}, false, nil
	}
	ver, err := strconv.ParseUint(vs, 10, 64)
	if err != nil {
		return stored{}, false, fmt.Errorf("player %d/%d: version %q: %w", id.Guild, id.User, vs, err)
	}
	if legacy.IsRedis([]byte(ps)) {
		return stored{}, true, nil
	}
	p, err := schema.DecodePlayerParts(recordKey(id), []byte(ps), []byte(str(r.s)))
	if err != nil {
		return stored{}, false, err
	}
	st = stored{Versioned: storage.Versioned{Player: p, Version: ver}, audit: str(r.a)}
	if res := str(r.op); res != "" {
		rr, err := schema.DecodeResult(recordKey(id)+" operation", []byte(res))
		if err != nil {
			return stored{}, false, err
		}
		st.Repeat = &rr
	}
	return st, false, nil
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
	st, err := s.load(ctx, id, "")
	return st.Versioned, err
}

// load reads the player and, when op is not "", the result remembered for
// op (Repeat), in one command; a legacy record is migrated first.
func (s *Store) load(ctx context.Context, id storage.PlayerID, op string) (stored, error) {
	for attempt := 0; ; attempt++ {
		fields := []string{"v", "p", "s", "a"}
		if op != "" {
			fields = append(fields, "o:"+op)
		}
		vals, err := s.rdb.HMGet(ctx, recordKey(id), fields...).Result()
		if err != nil {
			return stored{}, s.wrap(fmt.Sprintf("load %d/%d", id.Guild, id.User), err)
		}
		r := raw{v: vals[0], p: vals[1], s: vals[2], a: vals[3]}
		if op != "" {
			r.op = vals[4]
		}
		st, old, err := decodePlayer(id, r)
		if err != nil {
			return stored{}, fmt.Errorf("redisstore: load: %w", err)
		}
		if old && attempt < 3 {
			if err := s.migrate(ctx, id, str(r.v), str(r.p)); err != nil {
				return stored{}, err
			}
			continue
		}
		if old {
			return stored{}, fmt.Errorf("redisstore: load %d/%d: the record of the release before the schema was not migrated", id.Guild, id.User)
		}
		c := st
		c.Repeat = nil
		s.cache.put(id, c)
		return st, nil
	}
}

// Reveals implements storage.Store: LRANGE on r:{guild:user}.
func (s *Store) Reveals(ctx context.Context, id storage.PlayerID) (game.Reveals, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	if _, err := s.load(ctx, id, ""); err != nil { // a legacy record keeps its reveals inside: migrate it first
		return nil, err
	}
	vals, err := s.rdb.LRange(ctx, revealsKey(id), 0, game.MaxReveals-1).Result()
	if err != nil {
		return nil, s.wrap(fmt.Sprintf("reveals of %d/%d", id.Guild, id.User), err)
	}
	out := make(game.Reveals, len(vals))
	for i, v := range vals {
		if out[len(vals)-1-i], err = schema.DecodeReveal(revealsKey(id), []byte(v)); err != nil {
			return nil, fmt.Errorf("redisstore: %w", err)
		}
	}
	return out, nil
}

// Update implements storage.Store.
//
// The usual step is one round trip: the write script on the player's slot
// and, when the balance moved, the leaderboard's ZADD on the guild's, in
// one pipeline, with the version and state this process last wrote (the
// cache). The script looks the operation up first: a repeat writes
// nothing and returns the first result with the record as it is. On a
// conflict the script returns the record and fn runs again on it. When fn
// fails or skips on a cached state, Update reads the player, and whether
// it remembers the operation, to be sure before returning fn's answer. A
// moderator's action takes a second round trip, after the write, to append
// the audit entry.
//
// Every write to Redis is safe to repeat, because go-redis resends a
// command whose reply timed out: the script finds the operation it
// remembered the first time (or, for a write without one, its own
// payload at the version it wrote), ZADD sets an absolute balance, and
// the audit line carries the ID of the write it logs. See the package
// documentation for the index's failure cases.
func (s *Store) Update(ctx context.Context, id storage.PlayerID, op string, fn func(storage.Versioned) (storage.Write, error)) (storage.Versioned, error) {
	if err := storage.ValidateID(id); err != nil {
		return storage.Versioned{}, err
	}
	if op != "" {
		if err := game.ValidateOp(op); err != nil {
			return storage.Versioned{}, err
		}
	}
	if s.closed.Load() {
		return storage.Versioned{}, storage.ErrClosed
	}
	unlock, err := s.locks.lock(ctx, id)
	if err != nil {
		// Another step of this player, in this process, held it past
		// ctx's deadline: nothing was sent.
		return storage.Versioned{}, s.wrap(fmt.Sprintf("update %d/%d: wait for the player's lock", id.Guild, id.User), err)
	}
	defer unlock()
	cur, ok := s.cache.get(id)
	if !ok {
		var err error
		if cur, err = s.load(ctx, id, op); err != nil {
			return storage.Versioned{}, err
		}
		if cur.Repeat != nil {
			s.recoverAudit(ctx, id.Guild, cur.audit)
			return cur.Versioned, nil
		}
	}
	verified := !ok  // cur was read from Redis, not guessed from the cache
	indexed := false // a ZADD went with a write that may not have happened
	for attempt := 0; ; {
		w, err := fn(cur.Versioned)
		if err != nil || w.Skip {
			if !verified {
				fresh, lerr := s.load(ctx, id, op)
				if lerr != nil {
					return cur.Versioned, lerr
				}
				verified = true
				if fresh.Repeat != nil {
					s.recoverAudit(ctx, id.Guild, fresh.audit)
					return fresh.Versioned, nil
				}
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
		ew, err := encodeWrite(id, next, op, w)
		if err != nil {
			return cur.Versioned, err
		}
		if cur.Exists() && schema.SeedsOf(cur.Player) == schema.SeedsOf(ew.w.Player) {
			ew.seeds = "" // as stored: not sent again
		}
		if cur.audit == "" && ew.line == "" {
			ew.keepAudit = true // none before, none after: nothing to remove
		}
		prev, moved := cur.audit, !cur.Exists() || cur.Player.Balance != ew.w.Player.Balance
		var wait *redis.Cmd
		res, err := s.write(ctx, id, cur.Version, ew, func(p redis.Pipeliner) {
			if s.replicas > 0 {
				wait = p.Do(ctx, "WAIT", s.replicas, 1000) // after the script: its write reaches a replica
			}
			if moved {
				// A write that leaves the balance as it was leaves the
				// index as the write before it set it.
				p.ZAdd(ctx, boardKey(id.Guild), redis.Z{Score: score(ew.w.Player.Balance), Member: member(id.User)})
			}
			if recent(prev) {
				// The line of the version this write replaces, in case
				// its Update failed before appending it. EVAL, not
				// EVALSHA: a NOSCRIPT here would not be retried.
				appendOnceScript.Eval(ctx, p, []string{auditKey(id.Guild)}, prev, storage.AuditLimit)
			}
		})
		indexed = indexed || moved
		if err != nil {
			// The write may or may not have happened: forget the guess.
			s.cache.drop(id)
			return cur.Versioned, s.wrap(fmt.Sprintf("update %d/%d", id.Guild, id.User), err)
		}
		if res.ok || (res.version == u64(next) && res.payload == ew.payload && (ew.seeds == "" || res.seeds == ew.seeds)) {
			// Written; by an earlier attempt of go-redis's when the
			// record is ours (found as a repeat of op, or as a conflict
			// for a write without one), whose reply was lost.
			if err := s.replicated(wait); err != nil {
				// Not acknowledged: a failover now would lose it. A retry
				// of the operation finds it, or applies it on the new master.
				s.cache.drop(id)
				return cur.Versioned, fmt.Errorf("redisstore: update %d/%d: %w", id.Guild, id.User, err)
			}
			out := storage.Versioned{Player: ew.w.Player, Version: next}
			s.cache.put(id, stored{Versioned: out, audit: ew.line})
			if ew.line != "" {
				if err := s.appendAudit(ctx, id.Guild, ew.line); err != nil {
					return out, err
				}
			}
			return out, nil
		}
		fresh, old, err := decodePlayer(id, raw{v: res.version, p: res.payload, s: res.seeds, a: res.audit, op: res.result})
		switch {
		case err != nil:
			return cur.Versioned, fmt.Errorf("redisstore: update: %w", err)
		case old:
			if fresh, err = s.load(ctx, id, op); err != nil {
				return cur.Versioned, err
			}
		}
		if res.repeat && fresh.Repeat == nil {
			return cur.Versioned, fmt.Errorf("redisstore: update %d/%d: the script found operation %q without its result", id.Guild, id.User, op)
		}
		cur, verified = fresh, true
		if cur.Repeat != nil {
			// The operation was applied: by another process, or by this
			// write, sent twice by go-redis, whose first reply was lost.
			c := cur
			c.Repeat = nil
			s.cache.put(id, c)
			if indexed {
				s.correctIndex(ctx, id, cur.Versioned)
			}
			s.recoverAudit(ctx, id.Guild, cur.audit)
			return cur.Versioned, nil
		}
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

// errNotReplicated: a write that WAIT did not see reach the replicas the
// store waits for (WithReplicaAck) within its second.
var errNotReplicated = errors.New("the write reached no replica within a second: it may not survive a failover")

// replicated reports whether WAIT (nil when the store waits for no
// replica) saw the write reach s.replicas replicas.
func (s *Store) replicated(wait *redis.Cmd) error {
	if wait == nil {
		return nil
	}
	n, err := wait.Int()
	switch {
	case err != nil:
		return fmt.Errorf("WAIT: %w", err)
	case n < s.replicas:
		return fmt.Errorf("%w (%d of %d replicas)", errNotReplicated, n, s.replicas)
	}
	return nil
}

// encoded is a Write checked and encoded for the script.
type encoded struct {
	w       storage.Write // normalized
	payload string        // the player's record, without its seeds
	seeds   string        // its seeds ("" when they need not be sent)
	line    string        // the audit line, "" if none
	// keepAudit: the record has no audit line, and this write adds none.
	keepAudit bool
	op        string   // the operation, "" if none
	result    string   // its result
	main      []string // the ticket lines (game.MainLine), oldest first
	others    []string // the other history lines, oldest first
	reveal    string   // the reveal, "" if none
}

// encodeWrite encodes w as version next of the player, under operation op.
func encodeWrite(id storage.PlayerID, next uint64, op string, w storage.Write) (encoded, error) {
	w, err := storage.Normalize(id, w)
	if err != nil {
		return encoded{}, err
	}
	e := encoded{w: w, op: op}
	if w.Audit != nil {
		if e.line, err = encodeAudit(fmt.Sprintf("u:%d:%d", id.User, next), *w.Audit); err != nil {
			return encoded{}, err
		}
	}
	b, sd, err := schema.EncodePlayerParts(w.Player)
	if err != nil {
		return encoded{}, fmt.Errorf("redisstore: update %d/%d: %w", id.Guild, id.User, err)
	}
	e.payload, e.seeds = string(b), string(sd)
	if op != "" {
		r, err := schema.EncodeResult(w.Result)
		if err != nil {
			return encoded{}, err
		}
		e.result = string(r)
	}
	for _, h := range w.History {
		hb, err := schema.EncodeLine(h)
		if err != nil {
			return encoded{}, err
		}
		if game.MainLine(h) {
			e.main = append(e.main, string(hb))
		} else {
			e.others = append(e.others, string(hb))
		}
	}
	if w.Reveal != nil {
		rb, err := schema.EncodeReveal(*w.Reveal)
		if err != nil {
			return encoded{}, err
		}
		e.reveal = string(rb)
	}
	return e, nil
}

// writeResult is playerScript's answer.
type writeResult struct {
	ok, repeat                             bool
	version, payload, seeds, audit, result string // the record as it is, on a conflict or a repeat
}

// write runs playerScript for e over version expected, with also's
// commands in the same pipeline: one round trip. If Redis has lost the
// script it sends the pipeline again with EVAL; also's commands must
// therefore be safe to repeat.
func (s *Store) write(ctx context.Context, id storage.PlayerID, expected uint64, e encoded, also func(redis.Pipeliner)) (writeResult, error) {
	keys := []string{recordKey(id)}
	args := make([]any, 0, 14+len(e.main)+len(e.others))
	line := e.line
	if line == "" && e.keepAudit {
		line = "-"
	}
	args = append(args, u64(expected), u64(expected+1), e.payload, e.seeds, line, e.op, e.result, game.MaxOps)
	if e.op != "" {
		keys = append(keys, opsKey(id))
	}
	for _, l := range []struct {
		key   string
		keep  int
		lines []string
	}{{historyKey(id), game.MaxTicketLines, e.main}, {othersKey(id), game.MaxOtherLines, e.others}} {
		args = append(args, l.keep, len(l.lines))
		if len(l.lines) > 0 {
			keys = append(keys, l.key)
			for _, v := range l.lines {
				args = append(args, v)
			}
		}
	}
	args = append(args, game.MaxReveals, e.reveal)
	if e.reveal != "" {
		keys = append(keys, revealsKey(id))
	}
	reply, err := s.runScript(ctx, playerScript, keys, args, also)
	if err != nil {
		return writeResult{}, err
	}
	switch {
	case len(reply) == 1 && reply[0] == "OK":
		return writeResult{ok: true}, nil
	case len(reply) == 6 && reply[0] == "REPEAT":
		return writeResult{repeat: true, result: reply[1], version: reply[2], payload: reply[3], seeds: reply[4], audit: reply[5]}, nil
	case len(reply) == 5 && reply[0] == "CONFLICT":
		return writeResult{version: reply[1], payload: reply[2], seeds: reply[3], audit: reply[4]}, nil
	}
	return writeResult{}, fmt.Errorf("script reply %q", reply)
}

// runScript runs sc with also's commands in one pipeline, falling back to
// EVAL if Redis lost the script, and returns the script's reply.
func (s *Store) runScript(ctx context.Context, sc *redis.Script, keys []string, args []any, also func(redis.Pipeliner)) ([]string, error) {
	var cmd *redis.Cmd
	run := func(eval bool) error {
		pipe := s.rdb.Pipeline()
		if eval {
			cmd = sc.Eval(ctx, pipe, keys, args...)
		} else {
			cmd = sc.EvalSha(ctx, pipe, keys, args...)
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
		return nil, err
	}
	reply, err := cmd.StringSlice()
	if err != nil {
		return nil, fmt.Errorf("script reply: %w", err)
	}
	return reply, nil
}

// migrate rewrites, once, the record of the release before the schema that
// load read (version v, payload p) in the schema, moving its
// reveals and operations beside it and rewriting its history lines
// (migrateScript). Another process's migration or write meanwhile is fine:
// the caller reads the record again.
func (s *Store) migrate(ctx context.Context, id storage.PlayerID, v, p string) error {
	old, err := legacy.DecodeRedis([]byte(p))
	if err != nil {
		return fmt.Errorf("redisstore: player %d/%d: %w", id.Guild, id.User, err)
	}
	m, err := old.Player.Migrate()
	if err != nil {
		return fmt.Errorf("redisstore: player %d/%d: %w", id.Guild, id.User, err)
	}
	ver, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("redisstore: player %d/%d: version %q: %w", id.Guild, id.User, v, err)
	}
	w, err := storage.Normalize(id, storage.Write{Player: m.Player})
	if err != nil {
		return err
	}
	payload, seeds, err := schema.EncodePlayerParts(w.Player)
	if err != nil {
		return err
	}
	lines, err := s.rdb.LRange(ctx, historyKey(id), 0, -1).Result()
	if err != nil {
		return s.wrap("migrate", err)
	}
	args := []any{v, p, u64(ver + 1), string(payload), string(seeds), old.Audit, len(lines)}
	for _, l := range lines {
		if legacy.IsEntry([]byte(l)) {
			e, err := legacy.DecodeEntry([]byte(l))
			if err != nil {
				return fmt.Errorf("redisstore: player %d/%d: %w", id.Guild, id.User, err)
			}
			e.At = storage.Timestamp(e.At)
			b, err := schema.EncodeLine(e)
			if err != nil {
				return err
			}
			l = string(b)
		}
		args = append(args, l)
	}
	args = append(args, len(m.Reveals))
	for i := len(m.Reveals) - 1; i >= 0; i-- {
		r := m.Reveals[i]
		r.CommittedAt, r.RevealedAt = storage.Timestamp(r.CommittedAt), storage.Timestamp(r.RevealedAt)
		b, err := schema.EncodeReveal(r)
		if err != nil {
			return err
		}
		args = append(args, string(b))
	}
	for _, o := range m.Ops {
		b, err := schema.EncodeResult(o.Result)
		if err != nil {
			return err
		}
		args = append(args, o.ID, string(b))
	}
	keys := []string{recordKey(id), opsKey(id), historyKey(id), revealsKey(id)}
	if err := migrateScript.Run(ctx, s.rdb, keys, args...).Err(); err != nil {
		return s.wrap(fmt.Sprintf("migrate %d/%d", id.Guild, id.User), err)
	}
	s.cache.drop(id)
	return nil
}

// encodeAudit encodes an entry that storage.NormalizeAudit has checked,
// logged by the write lineID.
func encodeAudit(lineID string, e game.AuditEntry) (string, error) {
	b, err := schema.EncodeAudit(e.Guild, lineID, e)
	if err != nil {
		return "", fmt.Errorf("redisstore: %w", err)
	}
	return string(b), nil
}

// decodeAudit reads a line of guild's moderator log, in the schema or, for
// a line of the release before it, as that release wrote it; it returns
// the entry, checked, and the ID of the write that logged it.
func decodeAudit(guild uint64, raw string) (game.AuditEntry, string, error) {
	record := fmt.Sprintf("a:{%d} line", guild)
	if legacy.IsAudit([]byte(raw)) {
		e, id, err := legacy.DecodeAudit(guild, []byte(raw))
		if err == nil {
			err = e.Check()
		}
		if err != nil {
			return game.AuditEntry{}, "", fmt.Errorf("%s %q: %w", record, raw, err)
		}
		return e, id, nil
	}
	return schema.DecodeAudit(record, guild, []byte(raw))
}

// casResult is the script's answer.
type casResult struct {
	ok                     bool
	version, payload, line string // the record as it is, on a conflict
}

// cas runs the script on record (and list, when there are lines), with
// also's commands in the same pipeline: one round trip. line is the
// record's moderator log line, "" for none. If Redis has lost
// the script it sends the pipeline again with EVAL; also's commands must
// therefore be safe to repeat.
func (s *Store) cas(ctx context.Context, record, list string, expected uint64, payload, line string, limit int, lines []string, also func(redis.Pipeliner)) (casResult, error) {
	keys := []string{record}
	args := make([]any, 0, 5+len(lines))
	args = append(args, u64(expected), u64(expected+1), payload, line, limit)
	if len(lines) > 0 {
		keys = append(keys, list)
		for _, l := range lines {
			args = append(args, l)
		}
	}
	reply, err := s.runScript(ctx, casScript, keys, args, also)
	if err != nil {
		return casResult{}, err
	}
	switch {
	case len(reply) == 1 && reply[0] == "OK":
		return casResult{ok: true}, nil
	case len(reply) == 4 && reply[0] == "CONFLICT":
		return casResult{version: reply[1], payload: reply[2], line: reply[3]}, nil
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
	e, _, err := decodeAudit(1, line) // the guild does not matter: only the time is read
	return err == nil && time.Since(e.At) <= recoverWindow
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

// guild reads the guild and the audit line of its last write, rewriting
// it first if the release before the schema wrote it.
func (s *Store) guild(ctx context.Context, guild uint64) (storage.VersionedGuild, string, error) {
	for range storage.MaxAttempts {
		vals, err := s.rdb.HMGet(ctx, settingsKey(guild), "v", "p", "a").Result()
		if err != nil {
			return storage.VersionedGuild{}, "", s.wrap(fmt.Sprintf("guild %d", guild), err)
		}
		g, line, err := s.decodeGuild(guild, vals[0], vals[1], vals[2])
		if !errors.Is(err, errLegacyGuild) {
			return g, line, err
		}
		if err := s.migrateGuild(ctx, guild, str(vals[0]), str(vals[1])); err != nil {
			return storage.VersionedGuild{}, "", err
		}
	}
	return storage.VersionedGuild{}, "", fmt.Errorf("redisstore: guild %d: the record of the release before the schema was not migrated", guild)
}

// errLegacyGuild is decodeGuild's answer for a record of the release
// before the schema: the caller migrates it (guild) and reads it again.
var errLegacyGuild = errors.New("redisstore: guild record of the release before the schema")

// decodeGuild reads the fields v, p and a of s:{guild}: the guild, its
// version and the moderator log line of its last write. A guild never
// written has the store's default settings and version 0.
func (s *Store) decodeGuild(guild uint64, v, p, a any) (storage.VersionedGuild, string, error) {
	vs, ps := str(v), str(p)
	if vs == "" || vs == "0" {
		return storage.VersionedGuild{Guild: game.Guild{Settings: s.opts.Defaults}}, "", nil
	}
	ver, err := strconv.ParseUint(vs, 10, 64)
	if err != nil {
		return storage.VersionedGuild{}, "", fmt.Errorf("redisstore: guild %d: version %q: %w", guild, vs, err)
	}
	if legacy.IsRedisGuild([]byte(ps)) {
		return storage.VersionedGuild{}, "", errLegacyGuild
	}
	g, err := schema.DecodeGuild(fmt.Sprintf("s:{%d}", guild), []byte(ps))
	if err != nil {
		return storage.VersionedGuild{}, "", fmt.Errorf("redisstore: %w", err)
	}
	return storage.VersionedGuild{Guild: g, Version: ver}, str(a), nil
}

// migrateGuild rewrites, once, the guild record v, p of the release before
// the schema in the schema, keeping its version, and moves the moderator
// log line it carried to the field a, as it is (so that appendOnceScript
// still recognises it in the log). A record written before house rules
// existed gets the store's default ones, as its players had. Another
// process's migration or write meanwhile is fine: the caller reads the
// record again.
func (s *Store) migrateGuild(ctx context.Context, guild uint64, v, p string) error {
	g, line, err := legacy.DecodeRedisGuild([]byte(p), s.opts.Defaults.House)
	if err != nil {
		return fmt.Errorf("redisstore: guild %d: %w", guild, err)
	}
	b, err := schema.EncodeGuild(g)
	if err != nil {
		return fmt.Errorf("redisstore: migrate guild %d: %w", guild, err)
	}
	err = migrateGuildScript.Run(ctx, s.rdb, []string{settingsKey(guild)}, v, p, string(b), line).Err()
	return s.wrap(fmt.Sprintf("migrate guild %d", guild), err)
}

// Jobs implements storage.Store: SMEMBERS of the set jobs:{jobs}, in
// increasing order.
func (s *Store) Jobs(ctx context.Context) ([]uint64, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	ms, err := s.rdb.SMembers(ctx, jobsKey).Result()
	if err != nil {
		return nil, s.wrap("jobs", err)
	}
	out := make([]uint64, 0, len(ms))
	for _, m := range ms {
		g, err := strconv.ParseUint(m, 10, 64)
		if err != nil || g == 0 {
			return nil, fmt.Errorf("redisstore: jobs: member %q is not a guild", m)
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return out, nil
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
		b, err := schema.EncodeGuild(next.Guild)
		if err != nil { // a guild the schema cannot keep as it is
			return cur, fmt.Errorf("redisstore: update guild %d: %w: %w", guild, storage.ErrInvalid, err)
		}
		// The index of guilds with a job in progress is in a slot of its
		// own: a guild joins it before the write that starts or continues
		// a job, and leaves it after the one that ends it, so that a
		// crash between the two leaves it listed (Jobs), never unlisted.
		job := w.Guild.Reset != nil && !w.Guild.Reset.Finished()
		if job {
			if err := s.rdb.SAdd(ctx, jobsKey, u64(guild)).Err(); err != nil {
				return cur, s.wrap(fmt.Sprintf("update guild %d: jobs index", guild), err)
			}
		}
		res, err := s.cas(ctx, settingsKey(guild), "", cur.Version, string(b), line, 0, nil, nil)
		if err != nil {
			return cur, s.wrap(fmt.Sprintf("update guild %d", guild), err)
		}
		if res.ok || (res.version == u64(next.Version) && res.payload == string(b) && res.line == line) {
			if !job {
				if err := s.rdb.SRem(ctx, jobsKey, u64(guild)).Err(); err != nil {
					return next, s.wrap(fmt.Sprintf("update guild %d: jobs index", guild), err)
				}
			}
			if line != "" {
				if err := s.appendAudit(ctx, guild, line); err != nil {
					return next, err
				}
			}
			return next, nil
		}
		cur, audit, err = s.decodeGuild(guild, res.version, res.payload, res.line)
		if errors.Is(err, errLegacyGuild) { // an older process wrote it meanwhile
			cur, audit, err = s.guild(ctx, guild)
		}
		if err != nil {
			return cur, err
		}
	}
	return cur, fmt.Errorf("redisstore: update guild %d: %w", guild, storage.ErrConflict)
}
