package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Store is the Redis store. Each step is one Lua script on the player's own
// hash slot, run in at most two round trips.
type Store struct {
	rdb    redis.UniversalClient
	opts   storage.Options
	closed atomic.Bool
}

var (
	_ storage.Store  = (*Store)(nil)
	_ storage.Dumper = (*Store)(nil)
)

// New returns a store over client, which it owns: Close closes it.
func New(client redis.UniversalClient, opts storage.Options) *Store {
	return &Store{rdb: client, opts: opts.WithDefaults()}
}

// Open parses url (see ParseURL for the accepted forms) and connects with
// NewClient's timeouts and retries.
// It loads the scripts (which checks that Redis answers) before returning.
func Open(ctx context.Context, url string, opts storage.Options) (*Store, error) {
	client, err := NewClient(url)
	if err != nil {
		return nil, err
	}
	s := New(client, opts)
	if err := s.LoadScripts(ctx); err != nil {
		_ = client.Close()
		return nil, err
	}
	return s, nil
}

// LoadScripts loads every script into Redis's script cache (on every
// master of a cluster), so that steps run with EVALSHA from the start. It
// is optional: a step falls back to EVAL when its script is missing.
func (s *Store) LoadScripts(ctx context.Context) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	for _, sc := range allScripts {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return s.wrap("load scripts", err)
		}
	}
	return nil
}

// Client returns the underlying client.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// Close closes the client; later calls return storage.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.rdb.Close(); err != nil {
		return fmt.Errorf("redisstore: close: %w", err)
	}
	return nil
}

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	return s.wrap("ping", s.rdb.Ping(ctx).Err())
}

// wrap turns a Redis error into the package's own.
func (s *Store) wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case s.closed.Load() || errors.Is(err, redis.ErrClosed):
		return storage.ErrClosed
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}

func (s *Store) now() time.Time { return storage.Timestamp(s.opts.Now()) }

func tag(id storage.PlayerID) string { return "{" + u64(id.Guild) + ":" + u64(id.User) + "}" }
func playerKeys(id storage.PlayerID) []string {
	t := tag(id)
	return []string{"p:" + t, "h:" + t, "pa:" + t}
}
func settingsKey(guild uint64) string { return "s:{" + u64(guild) + "}" }
func auditKey(guild uint64) string    { return "a:{" + u64(guild) + "}" }
func membersKey(guild uint64) string  { return "m:{" + u64(guild) + "}" }

// moderatedKey is the set of the guild's players a moderator acted on: the
// players with an audit list (pa:{g:u}).
func moderatedKey(guild uint64) string { return "am:{" + u64(guild) + "}" }
func u64(x uint64) string              { return strconv.FormatUint(x, 10) }
func i64(x int64) string               { return strconv.FormatInt(x, 10) }

// result is a script's reply.
type result struct {
	status string
	player storage.Player
	extra  []any
}

// step runs sc on player id in at most two round trips. The first sends the
// script (which refuses to create a missing player) together with a read of
// the guild's settings; only when the player is missing does a second one
// create it, with the settings just read, and add it to the guild's members.
// With needSettings, args depends on the settings and the first round trip
// only reads them. args returns ARGV from the 4th on. also adds commands to
// the script's pipeline (idempotent ones: they run whatever the script says).
func (s *Store) step(ctx context.Context, op string, sc *redis.Script, id storage.PlayerID, needSettings bool, args func(set storage.Settings) ([]any, error), also ...func(p redis.Pipeliner)) (result, error) {
	if s.closed.Load() {
		return result{}, storage.ErrClosed
	}
	if err := storage.ValidateID(id); err != nil {
		return result{}, err
	}
	keys := playerKeys(id)
	now := i64(s.now().UnixMilli())
	set := s.opts.Defaults
	if needSettings {
		var err error
		if set, err = s.Settings(ctx, id.Guild); err != nil {
			return result{}, err
		}
	}
	extra, err := args(set)
	if err != nil {
		return result{}, err
	}
	var setCmd *redis.StringCmd
	for create := needSettings; ; create = true {
		argv := append([]any{"0", i64(set.StartingBalance), now}, extra...)
		if create {
			argv[0] = "1"
		}
		cmd, err := s.run(ctx, func(p redis.Pipeliner) {
			if create {
				p.SAdd(ctx, membersKey(id.Guild), u64(id.User))
			} else {
				setCmd = p.Get(ctx, settingsKey(id.Guild))
			}
			for _, f := range also {
				f(p)
			}
		}, sc, keys, argv)
		if err != nil {
			return result{}, s.wrap(op, err)
		}
		r, err := parseResult(id, cmd)
		if err != nil {
			return result{}, s.wrap(op, err)
		}
		if r.status != "NOPLAYER" {
			return r, nil
		}
		if create {
			return result{}, s.wrap(op, errors.New("player missing after creation"))
		}
		if set, err = readSettings(setCmd, s.opts.Defaults); err != nil {
			return result{}, s.wrap(op, err)
		}
		if needSettings {
			if extra, err = args(set); err != nil {
				return result{}, err
			}
		}
	}
}

// run sends the commands of pre and the script in one pipeline, falling back
// to EVAL (one more round trip) when Redis lost its script cache.
func (s *Store) run(ctx context.Context, pre func(p redis.Pipeliner), sc *redis.Script, keys []string, argv []any) (*redis.Cmd, error) {
	for attempt := 0; ; attempt++ {
		var cmd *redis.Cmd
		cmds, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			if pre != nil {
				pre(p)
			}
			if attempt == 0 {
				cmd = sc.EvalSha(ctx, p, keys, argv...)
			} else {
				cmd = sc.Eval(ctx, p, keys, argv...)
			}
			return nil
		})
		if attempt == 0 && redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			continue
		}
		if err != nil && cmd.Err() == nil {
			// A failure of a side command other than a missing key.
			for _, c := range cmds {
				if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
					return nil, e
				}
			}
		}
		return cmd, cmd.Err()
	}
}

func readSettings(c *redis.StringCmd, def storage.Settings) (storage.Settings, error) {
	if c == nil {
		return def, nil
	}
	b, err := c.Bytes()
	if errors.Is(err, redis.Nil) {
		return def, nil
	}
	if err != nil {
		return def, err
	}
	return decodeSettings(b)
}

func decodeSettings(b []byte) (storage.Settings, error) {
	var r storage.SettingsRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return storage.Settings{}, fmt.Errorf("decode settings: %w", err)
	}
	g := storage.GuildRecord{GuildID: 1, Settings: &r}
	set, _, err := g.Decode()
	if err != nil {
		return storage.Settings{}, fmt.Errorf("decode settings: %w", err)
	}
	return *set, nil
}

func encodeSettings(set storage.Settings) ([]byte, error) {
	return json.Marshal(storage.NewGuildRecord(1, &set, nil).Settings)
}

func parseResult(id storage.PlayerID, cmd *redis.Cmd) (result, error) {
	v, ok := cmd.Val().([]any)
	if !ok || len(v) == 0 {
		return result{}, fmt.Errorf("unexpected script reply %#v", cmd.Val())
	}
	st, _ := v[0].(string)
	r := result{status: st}
	if st == "NOPLAYER" {
		return r, nil
	}
	if len(v) < 2 {
		return result{}, fmt.Errorf("unexpected script reply %#v", v)
	}
	hash, ok := v[1].(string)
	if !ok {
		return result{}, fmt.Errorf("unexpected script reply %#v", v)
	}
	var f fields
	if err := parsePacked(hash, &f); err != nil {
		return result{}, fmt.Errorf("player %d/%d: %w", id.Guild, id.User, err)
	}
	p, err := playerFromFields(id, &f)
	if err != nil {
		return result{}, err
	}
	r.player, r.extra = p, v[2:]
	return r, nil
}

// The fields of a player's hash, by index in fields.
const (
	fStart = iota
	fBal
	fKeys
	fCP
	fCSeq
	fTSeq
	fLD
	fCA
	fPL
	fST
	fWO
	fGR
	fDA
	fCH
	fBW
	fWI
	fKY
	fTID
	fTB
	fTD
	fTKA
	fTC
	fTRV
	fTO
	fLCL
	fLCP
	numFields
)

// fieldNames are the names of the fields in the hash, by index.
var fieldNames = [numFields]string{
	fStart: "start", fBal: "bal", fKeys: "keys", fCP: "cp", fCSeq: "cseq", fTSeq: "tseq", fLD: "ld", fCA: "ca",
	fPL: "pl", fST: "st", fWO: "wo", fGR: "gr", fDA: "da", fCH: "ch", fBW: "bw", fWI: "wi", fKY: "ky",
	fTID: "tid", fTB: "tb", fTD: "td", fTKA: "tka", fTC: "tc", fTRV: "trv", fTO: "to", fLCL: "lcl", fLCP: "lcp",
}

// fields holds a player's hash: the value of each field, and whether the
// hash has it. Fields of other names are ignored.
type fields struct {
	v   [numFields]string
	has [numFields]bool
}

func (f *fields) set(name, value string) {
	if i := fieldIndex(name); i >= 0 {
		f.v[i], f.has[i] = value, true
	}
}

// fieldIndex returns the index of the field name, or -1. TestFieldNames
// holds it to fieldNames.
func fieldIndex(name string) int {
	switch name {
	case "start":
		return fStart
	case "bal":
		return fBal
	case "keys":
		return fKeys
	case "cp":
		return fCP
	case "cseq":
		return fCSeq
	case "tseq":
		return fTSeq
	case "ld":
		return fLD
	case "ca":
		return fCA
	case "pl":
		return fPL
	case "st":
		return fST
	case "wo":
		return fWO
	case "gr":
		return fGR
	case "da":
		return fDA
	case "ch":
		return fCH
	case "bw":
		return fBW
	case "wi":
		return fWI
	case "ky":
		return fKY
	case "tid":
		return fTID
	case "tb":
		return fTB
	case "td":
		return fTD
	case "tka":
		return fTKA
	case "tc":
		return fTC
	case "trv":
		return fTRV
	case "to":
		return fTO
	case "lcl":
		return fLCL
	case "lcp":
		return fLCP
	}
	return -1
}

// parsePacked reads a player's hash packed by the scripts (see prelude):
// names and values alternate, joined by newlines. The store writes neither
// a newline nor a name that is not a short run of lower-case letters; a
// hash edited by hand that has either is refused, not misread.
func parsePacked(s string, f *fields) error {
	if s == "" {
		return nil
	}
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return fmt.Errorf("packed hash: field %q has no value", s)
		}
		name := s[:i]
		if !fieldName(name) {
			return fmt.Errorf("packed hash: %q is not a field name", name)
		}
		s = s[i+1:]
		j := strings.IndexByte(s, '\n')
		if j < 0 {
			f.set(name, s)
			return nil
		}
		f.set(name, s[:j])
		s = s[j+1:]
	}
}

// fieldName reports whether name can be a field of the store's: 1 to 16
// lower-case ASCII letters.
func fieldName(name string) bool {
	if name == "" || len(name) > 16 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 'a' || name[i] > 'z' {
			return false
		}
	}
	return true
}

// fieldsOf returns the fields of a hash read with HGETALL.
func fieldsOf(m map[string]string) *fields {
	f := new(fields)
	for name, v := range m {
		f.set(name, v)
	}
	return f
}

func playerFromFields(id storage.PlayerID, f *fields) (storage.Player, error) {
	var bad error
	n := func(k int) int64 {
		s := f.v[k]
		if !f.has[k] || s == "" {
			return 0
		}
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil && bad == nil {
			bad = fmt.Errorf("player %d/%d: field %s=%q: %w", id.Guild, id.User, fieldNames[k], s, err)
		}
		return x
	}
	ms := func(k int) time.Time {
		if x := n(k); x != 0 {
			return time.UnixMilli(x).UTC()
		}
		return time.Time{}
	}
	p := storage.Player{
		ID: id, StartingBalance: n(fStart), Balance: n(fBal), Keys: int(n(fKeys)),
		ChestPending: n(fCP) == 1, ChestSeq: n(fCSeq), TicketSeq: uint64(n(fTSeq)),
		LastDaily: ms(fLD), CreatedAt: ms(fCA),
		Stats: storage.Stats{
			Plays: n(fPL), StakedCents: n(fST), WonCents: n(fWO), GrantedCents: n(fGR), DailyCents: n(fDA),
			Chests: n(fCH), BestWinCents: n(fBW), Wins: n(fWI), Keys: n(fKY),
		},
	}
	if tid := n(fTID); tid > 0 {
		t := storage.Ticket{ID: uint64(tid), BoughtAt: ms(fTB), Drawn: n(fTD) == 1, KeysAfter: int(n(fTKA)), Chest: n(fTC) == 1, Revealed: storage.RowMask(n(fTRV))}
		if t.Drawn {
			o, err := parseOutcome(f.v[fTO])
			if err != nil && bad == nil {
				bad = fmt.Errorf("player %d/%d: ticket %d: %w", id.Guild, id.User, tid, err)
			}
			t.Outcome = o
		}
		p.Ticket = &t
	}
	if f.has[fLCL] {
		p.LastChest = &game.Chest{Lot: game.Lot(n(fLCL)), Prize: n(fLCP)}
	}
	return p, bad
}

func encodeOutcome(o game.Outcome) string {
	key := 0
	if o.Key {
		key = 1
	}
	return fmt.Sprintf("%d|%d|%d|%d|%s", o.Tier, o.Prize, key, o.Row, o.Grid)
}

func parseOutcome(s string) (game.Outcome, error) {
	parts := strings.Split(s, "|")
	if len(parts) != 5 {
		return game.Outcome{}, fmt.Errorf("outcome %q", s)
	}
	tier, err1 := strconv.ParseUint(parts[0], 10, 8)
	prize, err2 := strconv.ParseInt(parts[1], 10, 64)
	row, err3 := strconv.ParseInt(parts[3], 10, 8)
	g, err4 := game.ParseGrid(parts[4])
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return game.Outcome{}, fmt.Errorf("outcome %q: %w", s, err)
	}
	return game.Outcome{Tier: game.Tier(tier), Prize: prize, Key: parts[2] == "1", Row: int8(row), Grid: g}, nil
}

func parseHistory(s string) (storage.HistoryEntry, error) {
	p := strings.Split(s, "|")
	if len(p) != 8 {
		return storage.HistoryEntry{}, fmt.Errorf("history entry %q", s)
	}
	var nums [8]int64
	for _, i := range []int{0, 2, 3, 4, 5, 6, 7} {
		x, err := strconv.ParseInt(p[i], 10, 64)
		if err != nil {
			return storage.HistoryEntry{}, fmt.Errorf("history entry %q: %w", s, err)
		}
		nums[i] = x
	}
	return storage.HistoryEntry{
		At: time.UnixMilli(nums[0]).UTC(), Kind: storage.Kind(p[1]), TicketID: uint64(nums[2]),
		Tier: game.Tier(nums[3]), Key: nums[4] == 1, Lot: game.Lot(nums[5]), Amount: nums[6], Balance: nums[7],
	}, nil
}

func formatHistory(h storage.HistoryEntry) string {
	key := 0
	if h.Key {
		key = 1
	}
	return fmt.Sprintf("%d|%s|%d|%d|%d|%d|%d|%d", h.At.UnixMilli(), h.Kind, h.TicketID, h.Tier, key, h.Lot, h.Amount, h.Balance)
}

// auditJSON is an audit entry as stored in Redis lists.
type auditJSON struct {
	At     int64  `json:"t"`
	Actor  uint64 `json:"a,string"`
	Target uint64 `json:"u,string"`
	Action string `json:"k"`
	Amount int64  `json:"n"`
	Reason string `json:"r,omitempty"`
}

func encodeAudit(e storage.AuditEntry) string {
	b, _ := json.Marshal(auditJSON{At: e.At.UnixMilli(), Actor: e.Actor, Target: e.Target, Action: e.Action, Amount: e.Amount, Reason: e.Reason})
	return string(b)
}

func decodeAudit(guild uint64, s string) (storage.AuditEntry, error) {
	var a auditJSON
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return storage.AuditEntry{}, fmt.Errorf("audit entry %q: %w", s, err)
	}
	return storage.AuditEntry{At: time.UnixMilli(a.At).UTC(), Guild: guild, Actor: a.Actor, Target: a.Target, Action: a.Action, Amount: a.Amount, Reason: a.Reason}, nil
}

func noArgs(storage.Settings) ([]any, error) { return nil, nil }

// Player returns the player's state, creating the player if needed.
func (s *Store) Player(ctx context.Context, id storage.PlayerID) (storage.Player, error) {
	r, err := s.step(ctx, "player", playerScript, id, false, noArgs)
	return r.player, err
}

// Buy debits the stake and opens a ticket, or returns the open one.
func (s *Store) Buy(ctx context.Context, id storage.PlayerID) (storage.Player, storage.Ticket, bool, error) {
	r, err := s.step(ctx, "buy", buyScript, id, false, noArgs)
	if err != nil {
		return storage.Player{}, storage.Ticket{}, false, err
	}
	switch r.status {
	case "OK", "RESUMED":
		if r.player.Ticket == nil {
			return storage.Player{}, storage.Ticket{}, false, s.wrap("buy", errors.New("no ticket after buy"))
		}
		return r.player, *r.player.Ticket, r.status == "RESUMED", nil
	case "CHESTDUE":
		return r.player, storage.Ticket{}, false, storage.ErrChestDue
	case "FUNDS":
		return r.player, storage.Ticket{}, false, storage.ErrInsufficientFunds
	}
	return storage.Player{}, storage.Ticket{}, false, s.wrap("buy", fmt.Errorf("unexpected status %q", r.status))
}

// drawErr keeps the drawer's failure aside: it matters only if the script
// finds the ticket undrawn.
type drawErr struct{ err error }

// Reveal draws the ticket at the first call and records the rows shown.
func (s *Store) Reveal(ctx context.Context, id storage.PlayerID, ticketID uint64, rows storage.RowMask) (storage.Player, storage.Ticket, error) {
	if rows&^storage.AllRows != 0 {
		return storage.Player{}, storage.Ticket{}, fmt.Errorf("%w: rows %#b", storage.ErrInvalid, rows)
	}
	var failed drawErr
	r, err := s.step(ctx, "reveal", revealScript, id, false, func(storage.Settings) ([]any, error) {
		args := []any{u64(ticketID), int(rows), "", "", ""}
		failed = drawErr{}
		for k := range game.MaxKeys {
			o, err := s.opts.Drawer.Play(k)
			if err == nil {
				err = storage.ValidateOutcome(o)
			}
			if err != nil {
				// Send no candidates: a drawn ticket still reveals, an
				// undrawn one answers NEEDDRAW and nothing changes.
				failed = drawErr{fmt.Errorf("draw ticket %d: %w", ticketID, err)}
				args[2], args[3], args[4] = "", "", ""
				break
			}
			args[2+k] = encodeOutcome(o)
		}
		return args, nil
	})
	if err != nil {
		return storage.Player{}, storage.Ticket{}, err
	}
	switch r.status {
	case "OK", "DRAWN":
		t := *r.player.Ticket
		t.DrawnNow = r.status == "DRAWN"
		return r.player, t, nil
	case "TICKET":
		return r.player, storage.Ticket{}, fmt.Errorf("%w: ticket %d", storage.ErrUnknownTicket, ticketID)
	case "NEEDDRAW":
		return r.player, storage.Ticket{}, failed.err
	case "INVALID":
		return r.player, storage.Ticket{}, fmt.Errorf("%w: outcome", storage.ErrInvalid)
	}
	return storage.Player{}, storage.Ticket{}, s.wrap("reveal", fmt.Errorf("unexpected status %q", r.status))
}

// OpenChest draws and credits the due chest, once.
func (s *Store) OpenChest(ctx context.Context, id storage.PlayerID, seq int64) (storage.Player, game.Chest, bool, error) {
	var failed drawErr
	r, err := s.step(ctx, "open chest", chestScript, id, false, func(storage.Settings) ([]any, error) {
		failed = drawErr{}
		c, err := s.opts.Drawer.Chest()
		if err == nil {
			err = storage.ValidateChest(c)
		}
		if err != nil {
			failed = drawErr{fmt.Errorf("draw chest %d: %w", seq, err)}
			return []any{i64(seq), ""}, nil
		}
		return []any{i64(seq), fmt.Sprintf("%d|%d", c.Lot, c.Prize)}, nil
	})
	if err != nil {
		return storage.Player{}, game.Chest{}, false, err
	}
	switch r.status {
	case "OK", "SAME":
		return r.player, *r.player.LastChest, r.status == "OK", nil
	case "NOCHEST":
		return r.player, game.Chest{}, false, fmt.Errorf("%w: chest %d (%d opened, pending %v)", storage.ErrNoChest, seq, r.player.ChestSeq, r.player.ChestPending)
	case "NEEDDRAW":
		return r.player, game.Chest{}, false, failed.err
	case "INVALID":
		return r.player, game.Chest{}, false, fmt.Errorf("%w: chest", storage.ErrInvalid)
	}
	return storage.Player{}, game.Chest{}, false, s.wrap("open chest", fmt.Errorf("unexpected status %q", r.status))
}

// ClaimDaily credits the guild's daily bonus if the cooldown has passed.
func (s *Store) ClaimDaily(ctx context.Context, id storage.PlayerID) (storage.Player, error) {
	r, err := s.step(ctx, "daily", dailyScript, id, true, func(set storage.Settings) ([]any, error) {
		return []any{i64(set.DailyAmount), i64(set.DailyCooldown.Milliseconds())}, nil
	})
	if err != nil {
		return storage.Player{}, err
	}
	switch r.status {
	case "OK":
		return r.player, nil
	case "COOLDOWN":
		return r.player, fmt.Errorf("%w: last claimed at %v", storage.ErrDailyCooldown, r.player.LastDaily)
	case "DISABLED":
		return r.player, fmt.Errorf("%w: the daily bonus is disabled", storage.ErrInvalid)
	case "INVALID":
		return r.player, fmt.Errorf("%w: balance would exceed %d", storage.ErrInvalid, storage.MaxBalance)
	}
	return storage.Player{}, s.wrap("daily", fmt.Errorf("unexpected status %q", r.status))
}

func (s *Store) moderate(ctx context.Context, op string, sc *redis.Script, id storage.PlayerID, needSettings bool, reason string, args func(set storage.Settings) ([]any, error)) (storage.Player, error) {
	if err := storage.ValidateReason(reason); err != nil {
		return storage.Player{}, err
	}
	// The action is logged in the player's own slot, atomically with it; the
	// guild's set of moderated players (idempotent, in the same round trip)
	// lets Audit read those players' lists only.
	r, err := s.step(ctx, op, sc, id, needSettings, args, func(p redis.Pipeliner) {
		p.SAdd(ctx, moderatedKey(id.Guild), u64(id.User))
	})
	if err != nil {
		return storage.Player{}, err
	}
	switch r.status {
	case "OK":
		return r.player, nil
	case "INVALID":
		return r.player, fmt.Errorf("%w: %s would put the balance out of 0..%d", storage.ErrInvalid, op, storage.MaxBalance)
	}
	return storage.Player{}, s.wrap(op, fmt.Errorf("unexpected status %q", r.status))
}

// Grant adds amount to the player's balance; recorded in the audit log.
func (s *Store) Grant(ctx context.Context, actor uint64, id storage.PlayerID, amount int64, reason string) (storage.Player, error) {
	if amount == 0 || amount > storage.MaxGrant || amount < -storage.MaxGrant {
		return storage.Player{}, storage.ValidateGrant(0, amount)
	}
	e := storage.AuditEntry{At: s.now(), Guild: id.Guild, Actor: actor, Target: id.User, Action: "grant", Amount: amount, Reason: reason}
	return s.moderate(ctx, "grant", grantScript, id, false, reason, func(storage.Settings) ([]any, error) {
		return []any{i64(amount), encodeAudit(e)}, nil
	})
}

// SetBalance sets the player's balance; recorded in the audit log.
func (s *Store) SetBalance(ctx context.Context, actor uint64, id storage.PlayerID, balance int64, reason string) (storage.Player, error) {
	if err := storage.ValidateBalance(balance); err != nil {
		return storage.Player{}, err
	}
	e := storage.AuditEntry{At: s.now(), Guild: id.Guild, Actor: actor, Target: id.User, Action: "set-balance", Amount: balance, Reason: reason}
	return s.moderate(ctx, "set-balance", setScript, id, false, reason, func(storage.Settings) ([]any, error) {
		return []any{i64(balance), encodeAudit(e)}, nil
	})
}

// ResetPlayer puts the player back to a new player's state; recorded in the audit log.
func (s *Store) ResetPlayer(ctx context.Context, actor uint64, id storage.PlayerID, reason string) (storage.Player, error) {
	now := s.now()
	return s.moderate(ctx, "reset", resetScript, id, true, reason, func(set storage.Settings) ([]any, error) {
		e := storage.AuditEntry{At: now, Guild: id.Guild, Actor: actor, Target: id.User, Action: "reset", Amount: set.StartingBalance, Reason: reason}
		return []any{encodeAudit(e)}, nil
	})
}

// ResetGuild resets every member of the guild, each in its own atomic step,
// then records one audit entry. It is not one transaction: a failure midway
// leaves some players reset; running it again finishes the job.
func (s *Store) ResetGuild(ctx context.Context, actor uint64, guild uint64, reason string) (int, error) {
	if guild == 0 {
		return 0, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if err := storage.ValidateReason(reason); err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	set, err := s.Settings(ctx, guild)
	if err != nil {
		return 0, err
	}
	users, err := s.members(ctx, guild)
	if err != nil {
		return 0, err
	}
	now := s.now()
	n := 0
	for chunk := range slices.Chunk(users, 256) {
		cmds := make([]*redis.Cmd, len(chunk))
		run := func(eval bool) error {
			_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for i, u := range chunk {
					argv := []any{"0", i64(set.StartingBalance), i64(now.UnixMilli()), ""}
					keys := playerKeys(storage.PlayerID{Guild: guild, User: u})
					if eval {
						cmds[i] = resetScript.Eval(ctx, p, keys, argv...)
					} else {
						cmds[i] = resetScript.EvalSha(ctx, p, keys, argv...)
					}
				}
				return nil
			})
			return err
		}
		err := run(false)
		if err != nil && redis.HasErrorPrefix(cmds[0].Err(), "NOSCRIPT") {
			err = run(true)
		}
		if err != nil {
			return n, s.wrap("reset guild", err)
		}
		for _, c := range cmds {
			if v, ok := c.Val().([]any); ok && len(v) > 0 && v[0] == "OK" {
				n++
			}
		}
	}
	e := storage.AuditEntry{At: now, Guild: guild, Actor: actor, Action: "reset-guild", Amount: int64(n), Reason: reason}
	if err := s.pushGuildAudit(ctx, guild, e); err != nil {
		return n, err
	}
	return n, nil
}

func (s *Store) pushGuildAudit(ctx context.Context, guild uint64, e storage.AuditEntry) error {
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, auditKey(guild), encodeAudit(e))
		p.LTrim(ctx, auditKey(guild), 0, storage.AuditLimit-1)
		return nil
	})
	return s.wrap("audit", err)
}

// members returns the guild's users, sorted.
func (s *Store) members(ctx context.Context, guild uint64) ([]uint64, error) {
	return s.userSet(ctx, membersKey(guild))
}

// userSet reads a set of user IDs, sorted.
func (s *Store) userSet(ctx context.Context, key string) ([]uint64, error) {
	ms, err := s.rdb.SMembers(ctx, key).Result()
	if err != nil {
		return nil, s.wrap("members", err)
	}
	users := make([]uint64, 0, len(ms))
	for _, m := range ms {
		u, err := strconv.ParseUint(m, 10, 64)
		if err != nil {
			return nil, s.wrap("members", fmt.Errorf("member %q of %s: %w", m, key, err))
		}
		users = append(users, u)
	}
	slices.Sort(users)
	return users, nil
}

// History returns up to n of the player's latest entries, newest first.
func (s *Store) History(ctx context.Context, id storage.PlayerID, n int) ([]storage.HistoryEntry, error) {
	if err := storage.ValidateID(id); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: n %d", storage.ErrInvalid, n)
	}
	if n == 0 {
		return nil, nil
	}
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	raw, err := s.rdb.LRange(ctx, playerKeys(id)[1], 0, int64(n-1)).Result()
	if err != nil {
		return nil, s.wrap("history", err)
	}
	out := make([]storage.HistoryEntry, 0, len(raw))
	for _, r := range raw {
		h, err := parseHistory(r)
		if err != nil {
			return nil, s.wrap("history", err)
		}
		out = append(out, h)
	}
	return out, nil
}

// Leaderboard returns up to n players of the guild by balance, highest first.
// It reads every member's balance (two round trips); guilds of a few
// thousand players are the expected size.
func (s *Store) Leaderboard(ctx context.Context, guild uint64, n int) ([]storage.LeaderboardEntry, error) {
	if n < 0 || guild == 0 {
		return nil, fmt.Errorf("%w: guild %d, n %d", storage.ErrInvalid, guild, n)
	}
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	users, err := s.members(ctx, guild)
	if err != nil {
		return nil, err
	}
	cmds := make([]*redis.SliceCmd, len(users))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, u := range users {
			cmds[i] = p.HMGet(ctx, playerKeys(storage.PlayerID{Guild: guild, User: u})[0], "bal", "wo")
		}
		return nil
	}); err != nil {
		return nil, s.wrap("leaderboard", err)
	}
	all := make([]storage.LeaderboardEntry, 0, len(users))
	for i, c := range cmds {
		v := c.Val()
		b, _ := v[0].(string)
		w, _ := v[1].(string)
		if b == "" {
			continue // a member whose hash is gone
		}
		bal, err1 := strconv.ParseInt(b, 10, 64)
		won, err2 := strconv.ParseInt(w, 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, s.wrap("leaderboard", err)
		}
		all = append(all, storage.LeaderboardEntry{User: users[i], Balance: bal, Won: won})
	}
	storage.SortLeaderboard(all)
	if len(all) > n {
		all = all[:n]
	}
	return all, nil
}

// auditLists returns every audit entry of the guild kept in Redis: the
// guild's own list and its members' lists, each newest first, concatenated
// in that order (guild list, then members by user id), up to n from each
// (all when n is 0).
func (s *Store) auditLists(ctx context.Context, guild uint64, n int64) ([]storage.AuditEntry, error) {
	users, err := s.userSet(ctx, moderatedKey(guild))
	if err != nil {
		return nil, err
	}
	keys := []string{auditKey(guild)}
	for _, u := range users {
		keys = append(keys, playerKeys(storage.PlayerID{Guild: guild, User: u})[2])
	}
	cmds := make([]*redis.StringSliceCmd, len(keys))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.LRange(ctx, k, 0, n-1)
		}
		return nil
	}); err != nil {
		return nil, s.wrap("audit", err)
	}
	var all []storage.AuditEntry
	for _, c := range cmds {
		for _, raw := range c.Val() {
			e, err := decodeAudit(guild, raw)
			if err != nil {
				return nil, s.wrap("audit", err)
			}
			all = append(all, e)
		}
	}
	return all, nil
}

// Audit returns up to n of the guild's latest moderator actions, newest
// first. Actions on one player are kept in that player's slot, atomically
// with the action; this merges them with the guild's own list.
func (s *Store) Audit(ctx context.Context, guild uint64, n int) ([]storage.AuditEntry, error) {
	if n < 0 || guild == 0 {
		return nil, fmt.Errorf("%w: guild %d, n %d", storage.ErrInvalid, guild, n)
	}
	if n == 0 {
		return nil, nil
	}
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	all, err := s.auditLists(ctx, guild, int64(n))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(all, func(a, b storage.AuditEntry) int { return b.At.Compare(a.At) })
	if len(all) > n {
		all = all[:n]
	}
	return all, nil
}

// Settings returns the guild's settings, or the defaults.
func (s *Store) Settings(ctx context.Context, guild uint64) (storage.Settings, error) {
	if guild == 0 {
		return storage.Settings{}, fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if s.closed.Load() {
		return storage.Settings{}, storage.ErrClosed
	}
	set, err := readSettings(s.rdb.Get(ctx, settingsKey(guild)), s.opts.Defaults)
	return set, s.wrap("settings", err)
}

// SetSettings replaces the guild's settings and records it, in one MULTI.
func (s *Store) SetSettings(ctx context.Context, actor uint64, guild uint64, set storage.Settings, reason string) error {
	if guild == 0 {
		return fmt.Errorf("%w: guild 0", storage.ErrInvalid)
	}
	if err := storage.ValidateSettings(set); err != nil {
		return err
	}
	if err := storage.ValidateReason(reason); err != nil {
		return err
	}
	if s.closed.Load() {
		return storage.ErrClosed
	}
	b, err := encodeSettings(set)
	if err != nil {
		return s.wrap("set settings", err)
	}
	e := storage.AuditEntry{At: s.now(), Guild: guild, Actor: actor, Action: "settings", Amount: set.StartingBalance, Reason: reason}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, settingsKey(guild), b, 0)
		p.LPush(ctx, auditKey(guild), encodeAudit(e))
		p.LTrim(ctx, auditKey(guild), 0, storage.AuditLimit-1)
		return nil
	})
	return s.wrap("set settings", err)
}

// scan calls fn with every key matching pattern, on every master.
func (s *Store) scan(ctx context.Context, pattern string, fn func(key string)) error {
	one := func(ctx context.Context, c redis.Cmdable) error {
		it := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for it.Next(ctx) {
			fn(it.Val())
		}
		return it.Err()
	}
	if cc, ok := s.rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock() // fn is not safe for concurrent use
			defer mu.Unlock()
			return one(ctx, c)
		})
	}
	return one(ctx, s.rdb)
}

// parseTag reads the ids of a key "x:{guild:user}" or "x:{guild}".
func parseTag(key string) (guild, user uint64, ok bool) {
	i, j := strings.IndexByte(key, '{'), strings.IndexByte(key, '}')
	if i < 0 || j < i {
		return 0, 0, false
	}
	g, u, two := strings.Cut(key[i+1:j], ":")
	guild, err := strconv.ParseUint(g, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if two {
		if user, err = strconv.ParseUint(u, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return guild, user, true
}

// ExportPlayers calls fn for every player by guild then user, with history.
// It scans the keyspace (the source of truth, not the member sets) and reads
// players in pipelines of 256; it is not a snapshot: stop the bot first.
func (s *Store) ExportPlayers(ctx context.Context, fn func(storage.Record) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	var ids []storage.PlayerID
	if err := s.scan(ctx, "p:{*}", func(k string) {
		if g, u, ok := parseTag(k); ok && u != 0 {
			ids = append(ids, storage.PlayerID{Guild: g, User: u})
		}
	}); err != nil {
		return s.wrap("export", err)
	}
	slices.SortFunc(ids, func(a, b storage.PlayerID) int {
		if c := cmp.Compare(a.Guild, b.Guild); c != 0 {
			return c
		}
		return cmp.Compare(a.User, b.User)
	})
	ids = slices.Compact(ids)
	for chunk := range slices.Chunk(ids, 256) {
		hs := make([]*redis.MapStringStringCmd, len(chunk))
		ls := make([]*redis.StringSliceCmd, len(chunk))
		if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range chunk {
				k := playerKeys(id)
				hs[i] = p.HGetAll(ctx, k[0])
				ls[i] = p.LRange(ctx, k[1], 0, -1)
			}
			return nil
		}); err != nil {
			return s.wrap("export", err)
		}
		for i, id := range chunk {
			p, err := playerFromFields(id, fieldsOf(hs[i].Val()))
			if err != nil {
				return s.wrap("export", err)
			}
			raw := ls[i].Val()
			hist := make([]storage.HistoryEntry, len(raw))
			for j, r := range raw {
				h, err := parseHistory(r)
				if err != nil {
					return s.wrap("export", err)
				}
				hist[len(raw)-1-j] = h
			}
			if err := fn(storage.NewRecord(p, hist)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExportGuilds calls fn for every guild with settings or audit entries.
func (s *Store) ExportGuilds(ctx context.Context, fn func(storage.GuildRecord) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	seen := map[uint64]bool{}
	for _, pat := range []string{"s:{*}", "a:{*}", "pa:{*}"} {
		if err := s.scan(ctx, pat, func(k string) {
			if g, _, ok := parseTag(k); ok {
				seen[g] = true
			}
		}); err != nil {
			return s.wrap("export", err)
		}
	}
	guilds := make([]uint64, 0, len(seen))
	for g := range seen {
		guilds = append(guilds, g)
	}
	slices.Sort(guilds)
	for _, g := range guilds {
		var set *storage.Settings
		b, err := s.rdb.Get(ctx, settingsKey(g)).Bytes()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return s.wrap("export", err)
		default:
			x, err := decodeSettings(b)
			if err != nil {
				return s.wrap("export", err)
			}
			set = &x
		}
		all, err := s.auditLists(ctx, g, 0) // LRANGE 0 -1: everything
		if err != nil {
			return err
		}
		// Each list is newest first: reverse them all, then order by time
		// keeping list order for equal times.
		slices.Reverse(all)
		slices.SortStableFunc(all, func(a, b storage.AuditEntry) int { return a.At.Compare(b.At) })
		if set == nil && len(all) == 0 {
			continue
		}
		if err := fn(storage.NewGuildRecord(g, set, all)); err != nil {
			return err
		}
	}
	return nil
}

// Import adds every player and guild of d, all or nothing: it checks that
// none exists, then writes; should a write fail, it deletes what it wrote.
func (s *Store) Import(ctx context.Context, d *storage.Dump) error {
	dd, err := d.Decode()
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return storage.ErrClosed
	}
	// Check first, so that a duplicate changes nothing.
	pc := make([]*redis.IntCmd, len(dd.Players))
	gc := make([]*redis.IntCmd, len(dd.Guilds))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, dp := range dd.Players {
			k := playerKeys(dp.Player.ID)
			pc[i] = p.Exists(ctx, k[0], k[1])
		}
		for i, dg := range dd.Guilds {
			gc[i] = p.Exists(ctx, settingsKey(dg.Guild), auditKey(dg.Guild))
		}
		return nil
	}); err != nil {
		return s.wrap("import", err)
	}
	for i, c := range pc {
		if c.Val() > 0 {
			id := dd.Players[i].Player.ID
			return fmt.Errorf("players[%d] (guild %d, user %d): %w: already in the store", i, id.Guild, id.User, storage.ErrDuplicate)
		}
	}
	for i, c := range gc {
		if c.Val() > 0 {
			return fmt.Errorf("guilds[%d] (guild %d): %w: already in the store", i, dd.Guilds[i].Guild, storage.ErrDuplicate)
		}
	}
	var written []string
	undo := func(cause error) error {
		if len(written) > 0 {
			ctx := context.WithoutCancel(ctx)
			for chunk := range slices.Chunk(written, 256) {
				_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
					for _, k := range chunk {
						p.Del(ctx, k)
					}
					return nil
				})
			}
		}
		return cause
	}
	for i, dp := range dd.Players {
		id := dp.Player.ID
		k := playerKeys(id)
		argv := append(playerFields(dp.Player), "--")
		for j := len(dp.History) - 1; j >= 0; j-- {
			argv = append(argv, formatHistory(dp.History[j]))
		}
		res, err := importScript.Run(ctx, s.rdb, k[:2], argv...).Result()
		if err != nil {
			return undo(s.wrap("import", err))
		}
		if res == "DUP" {
			return undo(fmt.Errorf("players[%d] (guild %d, user %d): %w: written meanwhile", i, id.Guild, id.User, storage.ErrDuplicate))
		}
		written = append(written, k[0], k[1])
		if err := s.rdb.SAdd(ctx, membersKey(id.Guild), u64(id.User)).Err(); err != nil {
			return undo(s.wrap("import", err))
		}
	}
	for _, dg := range dd.Guilds {
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			if dg.Settings != nil {
				b, err := encodeSettings(*dg.Settings)
				if err != nil {
					return err
				}
				p.Set(ctx, settingsKey(dg.Guild), b, 0)
			}
			for _, a := range dg.Audit {
				p.LPush(ctx, auditKey(dg.Guild), encodeAudit(a))
			}
			return nil
		})
		if err != nil {
			return undo(s.wrap("import", err))
		}
		written = append(written, settingsKey(dg.Guild), auditKey(dg.Guild))
	}
	return nil
}

// playerFields returns the hash of p as field/value pairs.
func playerFields(p storage.Player) []any {
	b := func(x bool) string {
		if x {
			return "1"
		}
		return "0"
	}
	ms := func(t time.Time) string {
		if t.IsZero() {
			return "0"
		}
		return i64(t.UnixMilli())
	}
	st := p.Stats
	f := []any{
		"bal", i64(p.Balance), "start", i64(p.StartingBalance), "keys", i64(int64(p.Keys)), "cp", b(p.ChestPending),
		"cseq", i64(p.ChestSeq), "tseq", u64(p.TicketSeq), "tid", "0", "ca", ms(p.CreatedAt), "ld", ms(p.LastDaily),
		"pl", i64(st.Plays), "st", i64(st.StakedCents), "wo", i64(st.WonCents), "gr", i64(st.GrantedCents),
		"da", i64(st.DailyCents), "ch", i64(st.Chests), "bw", i64(st.BestWinCents), "wi", i64(st.Wins), "ky", i64(st.Keys),
	}
	if t := p.Ticket; t != nil {
		to := ""
		if t.Drawn {
			to = encodeOutcome(t.Outcome)
		}
		f = append(f, "tid", u64(t.ID), "tb", ms(t.BoughtAt), "td", b(t.Drawn), "to", to,
			"tka", i64(int64(t.KeysAfter)), "tc", b(t.Chest), "trv", i64(int64(t.Revealed)))
	}
	if c := p.LastChest; c != nil {
		f = append(f, "lcl", i64(int64(c.Lot)), "lcp", i64(c.Prize))
	}
	return f
}
