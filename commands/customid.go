package commands

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

const maxCustomID = 100 // Discord's limit on a component's custom_id

type buttonKind uint8

const (
	kindRow          buttonKind = iota + 1 // reveal one row of a ticket
	kindAuto                               // reveal every row of a ticket
	kindAgain                              // buy the next ticket from a finished card
	kindChest                              // open the chest
	kindResetConfirm                       // confirm /admin reset-guild
	kindResetCancel                        // cancel /admin reset-guild
	kindPauseConfirm                       // confirm /pause
	kindPauseCancel                        // cancel /pause
	kindActivity                           // launch the Activity: scratch the ticket by hand
)

// customID is the value a button carries in its custom ID: the fields of
// its kind's layout.
type customID struct {
	kind   buttonKind
	user   uint64 // the owner: the player, or the moderator of a reset-guild
	ticket uint64 // row, auto: the card's ticket; again: the card's ticket, 0 if none
	row    int    // row: 0..2
	seq    int64  // chest: the chest's number, ChestSeq+1
	ts     int64  // reset-guild, pause: the unix time it was asked
	code   int    // pause: the length chosen (an index of pauseChoices)
}

// segment is one number of a custom ID: its range and its field.
type segment struct {
	lo, hi uint64
	get    func(*customID) uint64
	set    func(*customID, uint64) // v already in [lo, hi], which keeps it within the field's type
}

var (
	segUser       = segment{1, math.MaxUint64, func(c *customID) uint64 { return c.user }, func(c *customID, v uint64) { c.user = v }}
	segTicket     = segment{1, math.MaxInt64, getTicket, setTicket}
	segPrevTicket = segment{0, math.MaxInt64, getTicket, setTicket}
	segRow        = segment{0, 2, func(c *customID) uint64 { return uint64(c.row) }, func(c *customID, v uint64) { c.row = int(v) }}
	segSeq        = segment{1, math.MaxInt64, func(c *customID) uint64 { return uint64(c.seq) }, func(c *customID, v uint64) { c.seq = int64(v) }}
	segTS         = segment{1, 1 << 62, func(c *customID) uint64 { return uint64(c.ts) }, func(c *customID, v uint64) { c.ts = int64(v) }}
	segPause      = segment{0, 15, func(c *customID) uint64 { return uint64(c.code) }, func(c *customID, v uint64) { c.code = int(v) }}
)

func getTicket(c *customID) uint64    { return c.ticket }
func setTicket(c *customID, v uint64) { c.ticket = v }

// layout is how a kind of button writes its custom ID:
// "<version>:<name>:<segment>:…", every segment a decimal number.
type layout struct {
	kind     buttonKind
	version  string // bumped for a new format, so that it can coexist with the posted buttons
	name     string
	segments []segment
	metric   string // the kind's name for the logs and the Observer
}

// layouts is the one table that formats and parses custom IDs. The wire
// format must not change: buttons already posted carry it.
var layouts = []layout{
	{kindRow, "v1", "row", []segment{segUser, segTicket, segRow}, "reveal"},
	{kindAuto, "v1", "auto", []segment{segUser, segTicket}, "auto"},
	{kindAgain, "v1", "again", []segment{segUser, segPrevTicket}, "again"},
	{kindChest, "v1", "chest", []segment{segUser, segSeq}, "chest"},
	{kindResetConfirm, "v1", "rg", []segment{segUser, segTS}, "admin reset-guild confirm"},
	{kindResetCancel, "v1", "rgx", []segment{segUser, segTS}, "admin reset-guild cancel"},
	{kindPauseConfirm, "v1", "pz", []segment{segUser, segPause, segTS}, "pause confirm"},
	{kindPauseCancel, "v1", "pzx", []segment{segUser, segPause, segTS}, "pause cancel"},
	{kindActivity, "v1", "act", []segment{segUser}, "activity launch"},
}

// format writes the custom ID, e.g. "v1:row:<user>:<ticket>:<row>".
func (c customID) format() string {
	i := slices.IndexFunc(layouts, func(l layout) bool { return l.kind == c.kind })
	if i < 0 {
		return ""
	}
	l := layouts[i]
	parts := []string{l.version, l.name}
	for _, s := range l.segments {
		parts = append(parts, strconv.FormatUint(s.get(&c), 10))
	}
	return strings.Join(parts, ":")
}

// parseCustomID parses a custom ID strictly (a known layout, parseUint).
func parseCustomID(s string) (customID, bool) {
	if len(s) == 0 || len(s) > maxCustomID {
		return customID{}, false
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 {
		return customID{}, false
	}
	for _, l := range layouts {
		if parts[0] != l.version || parts[1] != l.name {
			continue
		}
		nums := parts[2:]
		if len(nums) != len(l.segments) {
			return customID{}, false
		}
		c := customID{kind: l.kind}
		for i, seg := range l.segments {
			v, ok := parseUint(nums[i], seg.lo, seg.hi)
			if !ok {
				return customID{}, false
			}
			seg.set(&c, v)
		}
		return c, true
	}
	return customID{}, false
}

// parseUint parses a decimal number in [lo, hi]: digits, no leading zero.
func parseUint(s string, lo, hi uint64) (uint64, bool) {
	if len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, false
	}
	return v, true
}

func parseSnowflake(s string) (uint64, bool) {
	return parseUint(s, 1, math.MaxUint64)
}
