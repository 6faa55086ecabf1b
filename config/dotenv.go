package config

import (
	"slices"
	"strings"
)

// Unknown is a key of a .env file that Load does not read: a typo
// (REDIS_ULR) would otherwise leave its setting at the default, unnoticed.
type Unknown struct {
	Key     string
	Closest string // the known name nearest to Key, "" when none is near
}

// UnknownKeys returns the keys of env (a .env file, as godotenv.Read
// returns it) that Load does not read, sorted, each with the known name
// closest to it. Only a .env's keys are checked: the real environment
// holds many variables of other programs.
func UnknownKeys(env map[string]string) []Unknown {
	var known []string // asked once with nothing set, Load names every variable it reads (its errors are expected)
	_, _ = Load(func(name string) string {
		if !slices.Contains(known, name) {
			known = append(known, name)
		}
		return ""
	})
	var out []Unknown
	for key := range env {
		if slices.Contains(known, key) {
			continue
		}
		u := Unknown{Key: key}
		best := len(key)/3 + 1 // nearer than this, it is taken for a typo
		for _, name := range known {
			if d := distance(strings.ToUpper(key), name); d <= best {
				u.Closest, best = name, d-1
			}
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b Unknown) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// distance is the Levenshtein distance between a and b, in bytes (the
// names are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
