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
	"github.com/lesclefsdutresor/clefs/internal/backoff"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// Run implements storage.Store as the package doc says ("A step"): a move
// refused on the cached state is answered only after a read of the player,
// and a repeat, which reports a write this call may not have made, only
// once the replicas hold the record (settle).
func (s *Store) Run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	a, err := s.run(ctx, step)
	if err == nil && a.Repeated {
		if err = s.settle(ctx, recordKey(step.ID), "o:"+step.Op, ""); err != nil {
			s.cache.drop(step.ID)
			err = s.wrap(fmt.Sprintf("run %d/%d", step.ID.Guild, step.ID.User), err)
		}
	}
	return a, err
}

func (s *Store) run(ctx context.Context, step storage.Step) (storage.Applied, error) {
	r, err := storage.Start(step)
	if err != nil {
		return storage.Applied{}, err
	}
	if s.closed.Load() {
		return storage.Applied{}, storage.ErrClosed
	}
	id, op, name := step.ID, step.Op, fmt.Sprintf("run %d/%d", step.ID.Guild, step.ID.User)
	cur, cached := s.cache.get(id)
	load := !cached // read the record first
	var out storage.Applied
	for attempt := 1; ; attempt++ {
		if load {
			// A damaged record goes to Next (storage.Versioned.Damaged).
			if cur, err = s.load(ctx, id, op); cur.Repeat != nil {
				return storage.Repeat(cur), nil
			} else if err != nil && cur.Damaged == nil {
				return out, err
			}
			load = false
		}
		if r.NeedsBeside(cur) {
			if err := r.ReadBeside(ctx, s); err != nil {
				return storage.Applied{Before: cur.Player, Player: cur.Player}, err
			}
		}
		var w storage.Write
		if w, out, err = r.Next(cur); err != nil {
			if !cached {
				return out, err
			}
			// Refused on the state this process last wrote: read it, and
			// whether it remembers the operation, before answering.
			fresh, lerr := s.load(ctx, id, op)
			switch {
			case fresh.Repeat != nil:
				return storage.Repeat(fresh), nil
			case lerr != nil && fresh.Damaged == nil:
				return out, lerr
			case fresh.Version == cur.Version && fresh.Damaged == nil:
				return out, err
			}
			cur, cached = fresh, false
			continue
		}
		expected, next := u64(cur.Version), cur.Version+1
		var bad versionError
		if cur.Damaged != nil && errors.As(cur.Damaged.Err, &bad) {
			// Compared as it is; the repaired record's version, the step's
			// time in nanoseconds, is above any a process may have cached.
			expected, next = string(bad), uint64(max(step.Now.UnixNano(), 1))
		}
		e, err := encodeWrite(id, next, op, w)
		if err != nil {
			return out, err
		}
		sound := cur.Exists() && cur.Damaged == nil
		if sound && schema.SeedsOf(cur.Player) == schema.SeedsOf(e.Write.Player) {
			e.seeds = "" // as stored: not sent again
		}
		if sound && cur.Player.Balance == e.Write.Player.Balance {
			e.board = false // the entry is the balance already
		}
		res, err := s.write(ctx, id, expected, e)
		if err != nil {
			// The write may or may not have happened: forget the guess.
			s.cache.drop(id)
			return out, s.wrap(name, err)
		}
		if res.ok {
			s.cache.put(id, storage.Versioned{Player: e.Write.Player, Version: next})
			out.Player = e.Write.Player
			return out, nil
		}
		fresh, err := decodePlayer(id, res.version, res.payload, res.seeds, res.result)
		if err != nil && fresh.Damaged == nil {
			return out, err
		}
		if res.repeat {
			if fresh.Repeat == nil {
				return out, fmt.Errorf("redisstore: %s: the script found operation %q without its result", name, op)
			}
			// The operation was applied: by another process, or by this
			// write, sent twice by go-redis, whose first reply was lost.
			s.cache.put(id, storage.Versioned{Player: fresh.Player, Version: fresh.Version})
			return storage.Repeat(fresh), nil
		}
		cur, cached = fresh, false
		if attempt == storage.MaxAttempts {
			return out, fmt.Errorf("redisstore: %s: %w", name, storage.ErrConflict)
		}
		if attempt < eagerAttempts {
			continue // the record the script returned is as fresh as any
		}
		// Many writers on one player: wait a random moment, longer after
		// each conflict, so that they stop colliding, then read the record
		// again: the one returned is stale by the end of the wait.
		select {
		case <-time.After(backoff.Jittered(attempt-eagerAttempts+1, 2*time.Millisecond, 32*time.Millisecond, mrand.N[time.Duration])):
		case <-ctx.Done():
			return out, s.wrap(name, ctx.Err())
		}
		load = true
	}
}

// eagerAttempts is how many times Run retries a conflict at once, on the
// record the failed write returned, before it waits between attempts.
const eagerAttempts = 3

// encoded is a Write checked and encoded for the script.
type encoded struct {
	storage.Encoded
	next    uint64 // the version written
	payload string // the player's record, without its seeds
	seeds   string // its seeds ("" when they need not be sent)
	board   bool   // set the leaderboard entry
	op      string // the operation, "" if none
}

func encodeWrite(id storage.PlayerID, next uint64, op string, w storage.Write) (encoded, error) {
	auditID := "" // formatted for a moderator's step only, not on every click
	if w.Audit != nil {
		auditID = fmt.Sprintf("u:%d:%d", id.User, next)
	}
	se, err := storage.Encode(id, op, auditID, w)
	if err != nil {
		return encoded{}, err
	}
	b, sd, err := schema.EncodePlayerParts(se.Write.Player)
	if err != nil {
		return encoded{}, fmt.Errorf("redisstore: update %d/%d: %w: %w", id.Guild, id.User, storage.ErrInvalid, err)
	}
	return encoded{Encoded: se, next: next, payload: string(b), seeds: string(sd), board: true, op: op}, nil
}

// writeResult is the answer of playerScript or casScript.
type writeResult struct {
	ok, repeat                      bool
	version, payload, seeds, result string // the record as it is, on a conflict or a repeat
}

// write runs playerScript for e over version expected (as stored): one
// round trip.
func (s *Store) write(ctx context.Context, id storage.PlayerID, expected string, e encoded) (writeResult, error) {
	keys := []string{recordKey(id)}
	args := []any{expected, u64(e.next), e.payload, e.seeds, e.op, e.Result, game.MaxOps}
	if e.op != "" {
		keys = append(keys, opsKey(id))
	}
	if e.board {
		keys = append(keys, boardKey(id.Guild))
		args = append(args, member(id.User), score(e.Write.Player.Balance))
	} else {
		args = append(args, "")
	}
	var audit [][]byte
	if e.Audit != nil {
		audit = [][]byte{e.Audit}
	}
	for _, l := range []struct {
		key   string
		keep  int
		lines [][]byte
	}{
		{historyKey(id), game.MaxTicketLines, e.Main},
		{othersKey(id), game.MaxOtherLines, e.Others},
		{revealsKey(id), game.MaxReveals, e.Reveals},
		{auditKey(id.Guild), storage.AuditLimit, audit},
	} {
		args = append(args, len(l.lines))
		if len(l.lines) > 0 {
			keys = append(keys, l.key)
			args = append(args, l.keep)
			for _, v := range l.lines {
				args = append(args, v)
			}
		}
	}
	return s.script(ctx, playerScript, keys, args)
}

// script runs sc (runScript) and reads its reply: {"OK"}, {"REPEAT",
// result, v, p, s}, or {"CONFLICT", v, p} and, from playerScript, s.
func (s *Store) script(ctx context.Context, sc *redis.Script, keys []string, args []any) (writeResult, error) {
	reply, err := s.runScript(ctx, sc, keys, args)
	if err != nil {
		return writeResult{}, err
	}
	switch {
	case len(reply) == 1 && reply[0] == "OK":
		return writeResult{ok: true}, nil
	case len(reply) == 5 && reply[0] == "REPEAT" && sc == playerScript:
		return writeResult{repeat: true, result: reply[1], version: reply[2], payload: reply[3], seeds: reply[4]}, nil
	case len(reply) == 4 && reply[0] == "CONFLICT" && sc == playerScript:
		return writeResult{version: reply[1], payload: reply[2], seeds: reply[3]}, nil
	case len(reply) == 3 && reply[0] == "CONFLICT" && sc == casScript:
		return writeResult{version: reply[1], payload: reply[2]}, nil
	}
	return writeResult{}, fmt.Errorf("script reply %q", reply)
}

// errNotReplicated: WAIT did not see the write reach the replicas in time.
var errNotReplicated = errors.New("the write reached too few replicas in time: it may not survive a failover")

// runScript runs sc, and WAIT after it when the store waits for replicas
// (package doc, "Replicas"), in one pipeline: one round trip, on the one
// connection whose writes WAIT waits for. It falls back to EVAL if Redis
// lost the script, and returns the script's reply.
func (s *Store) runScript(ctx context.Context, sc *redis.Script, keys []string, args []any) ([]string, error) {
	var cmd, wait *redis.Cmd
	run := func(eval bool) error {
		pipe := s.rdb.Pipeline()
		if c, ok := s.rdb.(*redis.ClusterClient); ok && s.replicas > 0 {
			// WAIT has no key: a cluster's pipeline would send it to any
			// node. Both go to the master of the keys' slot.
			node, err := c.MasterForKey(ctx, keys[0])
			if err != nil {
				return err
			}
			pipe = node.Pipeline()
		}
		if eval {
			cmd = sc.Eval(ctx, pipe, keys, args...)
		} else {
			cmd = sc.EvalSha(ctx, pipe, keys, args...)
		}
		if s.replicas > 0 {
			wait = pipe.Do(ctx, "WAIT", s.replicas, s.replicaWait.Milliseconds())
		}
		_, _ = pipe.Exec(ctx) // each command's error is read below
		return cmd.Err()
	}
	err := run(false)
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		err = run(true)
	}
	if c, ok := s.rdb.(*redis.ClusterClient); ok && (redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK")) {
		c.ReloadState(ctx) // the slot moved: the next try asks the cluster where
	}
	if err != nil {
		return nil, err
	}
	reply, err := cmd.StringSlice()
	if err != nil {
		return nil, fmt.Errorf("script reply: %w", err)
	}
	if wait != nil {
		switch n, err := wait.Int(); {
		case err != nil:
			return nil, fmt.Errorf("WAIT: %w", err)
		case n < s.replicas:
			return nil, fmt.Errorf("%w (%d of %d replicas within %v)", errNotReplicated, n, s.replicas, s.replicaWait)
		}
	}
	return reply, nil
}

// settle, when the store waits for replicas, waits until they hold record
// as it is, field there (holding want, if not ""), through settleScript
// (package doc, "Replicas"); a field the master lacks is an error.
func (s *Store) settle(ctx context.Context, record, field, want string) error {
	if s.replicas <= 0 {
		return nil
	}
	reply, err := s.runScript(ctx, settleScript, []string{record}, []any{field, want})
	if err == nil && (len(reply) != 1 || reply[0] != "OK") {
		err = fmt.Errorf("%s: %s: %w", record, field, errChanged)
	}
	return err
}

// errChanged: the record is not as read (settle).
var errChanged = errors.New("not on the master as read: written since, or lost by a failover")

// cas runs casScript on record, version expected, and, when there are
// lines, on list, which keeps limit: one round trip.
func (s *Store) cas(ctx context.Context, record, list string, expected uint64, payload string, limit int, lines []string) (writeResult, error) {
	keys := []string{record}
	args := []any{u64(expected), u64(expected + 1), payload, limit}
	if len(lines) > 0 {
		keys = append(keys, list)
		for _, l := range lines {
			args = append(args, l)
		}
	}
	return s.script(ctx, casScript, keys, args)
}

// Guild implements storage.Store.
func (s *Store) Guild(ctx context.Context, guild uint64) (storage.VersionedGuild, error) {
	if guild == 0 {
		return storage.VersionedGuild{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	g, _, err := s.readGuild(ctx, guild)
	return g, err
}

// readGuild reads the guild's record, and returns its payload p too.
func (s *Store) readGuild(ctx context.Context, guild uint64) (storage.VersionedGuild, string, error) {
	vals, err := s.rdb.HMGet(ctx, settingsKey(guild), "v", "p").Result()
	if err != nil {
		return storage.VersionedGuild{}, "", s.wrap(fmt.Sprintf("guild %d", guild), err)
	}
	g, err := s.decodeGuild(guild, str(vals[0]), str(vals[1]))
	return g, str(vals[1]), err
}

// decodeGuild reads the fields v and p of s:{guild}. A guild never written
// has the store's default settings and version 0.
func (s *Store) decodeGuild(guild uint64, v, p string) (storage.VersionedGuild, error) {
	if v == "" || v == "0" {
		return storage.VersionedGuild{Guild: game.Guild{Settings: s.opts.Defaults}}, nil
	}
	ver, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return storage.VersionedGuild{}, fmt.Errorf("redisstore: %s: version %q: %w", settingsKey(guild), v, err)
	}
	g, err := schema.DecodeGuild(settingsKey(guild), []byte(p))
	if err != nil {
		return storage.VersionedGuild{}, fmt.Errorf("redisstore: %w", err)
	}
	return storage.VersionedGuild{Guild: g, Version: ver}, nil
}

// Jobs implements storage.Store: SMEMBERS of the set jobs:{jobs}, in
// increasing order.
func (s *Store) Jobs(ctx context.Context) ([]uint64, error) {
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

// RunGuild implements storage.Store: the same compare-and-set as Run, on
// s:{guild}, with the audit line in the same script (casScript). Guilds
// are not cached: settings change rarely.
func (s *Store) RunGuild(ctx context.Context, step storage.GuildStep) (storage.GuildApplied, error) {
	if err := step.Check(); err != nil {
		return storage.GuildApplied{}, err
	}
	guild := step.Guild
	cur, raw, err := s.readGuild(ctx, guild) // raw: the record as read, for settle
	if err != nil {
		return storage.GuildApplied{}, err
	}
	for attempt := 0; attempt < storage.MaxAttempts; attempt++ {
		w, out, err := step.Next(cur)
		if err == nil && w.Skip && cur.Exists() {
			if err = s.settle(ctx, settingsKey(guild), "p", raw); errors.Is(err, errChanged) {
				if cur, raw, err = s.readGuild(ctx, guild); err != nil {
					return storage.GuildApplied{Guild: cur}, err
				}
				continue // changed since read: by another writer, or lost by a failover
			}
			err = s.wrap(fmt.Sprintf("run guild %d", guild), err)
		}
		if err != nil || w.Skip {
			return out, err
		}
		next := storage.VersionedGuild{Guild: w.Guild, Version: cur.Version + 1}
		var lines []string
		if w.Audit != nil {
			line, err := schema.EncodeAudit(guild, fmt.Sprintf("s:%d", next.Version), *w.Audit) // normalized by GuildStep.Next
			if err != nil {
				return storage.GuildApplied{Guild: cur}, fmt.Errorf("storage: encode audit: %w", err)
			}
			lines = []string{string(line)}
		}
		b, err := schema.EncodeGuild(next.Guild)
		if err != nil { // a guild the schema cannot keep as it is
			return storage.GuildApplied{Guild: cur}, fmt.Errorf("redisstore: run guild %d: %w: %w", guild, storage.ErrInvalid, err)
		}
		// The jobs index (docs/STORAGE.md §5): joined before the write, left after.
		job := w.Guild.Reset != nil && !w.Guild.Reset.Finished()
		if job {
			if err := s.rdb.SAdd(ctx, jobsKey, u64(guild)).Err(); err != nil {
				return storage.GuildApplied{Guild: cur}, s.wrap(fmt.Sprintf("run guild %d: jobs index", guild), err)
			}
		}
		res, err := s.cas(ctx, settingsKey(guild), auditKey(guild), cur.Version, string(b), storage.AuditLimit, lines)
		if err != nil {
			return storage.GuildApplied{Guild: cur}, s.wrap(fmt.Sprintf("run guild %d", guild), err)
		}
		if res.ok || (res.version == u64(next.Version) && res.payload == string(b)) {
			// Written; by an earlier send of go-redis's when the record
			// is ours, whose reply was lost (and WAIT then saw nothing).
			out.Guild = next
			if !res.ok {
				if err := s.settle(ctx, settingsKey(guild), "p", string(b)); err != nil {
					return out, s.wrap(fmt.Sprintf("run guild %d", guild), err)
				}
			}
			if !job {
				if err := s.rdb.SRem(ctx, jobsKey, u64(guild)).Err(); err != nil {
					return out, s.wrap(fmt.Sprintf("run guild %d: jobs index", guild), err)
				}
			}
			return out, nil
		}
		raw = res.payload
		if cur, err = s.decodeGuild(guild, res.version, raw); err != nil {
			return storage.GuildApplied{Guild: cur}, err
		}
	}
	return storage.GuildApplied{Guild: cur}, fmt.Errorf("redisstore: run guild %d: %w", guild, storage.ErrConflict)
}
