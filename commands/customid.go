package commands

import (
	"strconv"
)

// Custom IDs of the buttons. They carry everything a handler needs, so a
// button from before a restart still works, and are parsed strictly: decimal
// numbers without sign or leading zero, ranges checked, at most 100 chars.
// The version prefix lets a future format coexist with the buttons already
// posted.
const (
	patRow       = "v1:row:{user}:{ticket}:{row}" // reveal one row (0..2)
	patAuto      = "v1:auto:{user}:{ticket}"      // reveal every row
	patAgain     = "v1:again:{user}:{ticket}"     // buy the next ticket; ticket is the one on the card
	patChest     = "v1:chest:{user}:{seq}"        // open chest number seq (ChestSeq+1)
	patResetOK   = "v1:rg:{user}:{ts}"            // confirm reset-guild, asked at unix time ts
	patResetStop = "v1:rgx:{user}:{ts}"           // cancel reset-guild
)

// The IDs are built in a stack buffer: the string is the only allocation.

func twoID(prefix string, a, b uint64) string {
	var arr [64]byte
	buf := append(arr[:0], prefix...)
	buf = strconv.AppendUint(buf, a, 10)
	buf = append(buf, ':')
	buf = strconv.AppendUint(buf, b, 10)
	return string(buf)
}

// cardIDs returns the custom IDs of a ticket card's buttons (its rows,
// Auto, Play again), which share the user and the ticket, in one allocation.
func cardIDs(user, ticket uint64) (rows [3]string, auto, again string) {
	var ut [41]byte // "user:ticket"
	u := strconv.AppendUint(ut[:0], user, 10)
	u = append(u, ':')
	u = strconv.AppendUint(u, ticket, 10)
	var arr [5 * (len("v1:again:") + len(ut) + 2)]byte
	var ends [5]int
	b := arr[:0]
	for r := range 3 {
		b = append(append(append(b, "v1:row:"...), u...), ':', byte('0'+r))
		ends[r] = len(b)
	}
	b = append(append(b, "v1:auto:"...), u...)
	ends[3] = len(b)
	b = append(append(b, "v1:again:"...), u...)
	ends[4] = len(b)
	s := string(b)
	return [3]string{s[:ends[0]], s[ends[0]:ends[1]], s[ends[1]:ends[2]]}, s[ends[2]:ends[3]], s[ends[3]:ends[4]]
}

func autoID(user, ticket uint64) string     { return twoID("v1:auto:", user, ticket) }
func againID(user, ticket uint64) string    { return twoID("v1:again:", user, ticket) }
func chestID(user uint64, seq int64) string { return twoID("v1:chest:", user, uint64(seq)) }
func resetOKID(user uint64, ts int64) string {
	return twoID("v1:rg:", user, uint64(ts))
}
func resetStopID(user uint64, ts int64) string {
	return twoID("v1:rgx:", user, uint64(ts))
}

// parseUint parses a strictly decimal number in [lo, hi]: digits only, no
// sign, no leading zero, no spaces.
func parseUint(s string, lo, hi uint64) (uint64, bool) {
	if s == "" || len(s) > 20 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, false
	}
	return v, true
}

// parseSnowflake parses a Discord ID: a positive decimal uint64.
func parseSnowflake(s string) (uint64, bool) {
	return parseUint(s, 1, 1<<64-1)
}
