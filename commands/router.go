package commands

import (
	"fmt"
	"strings"
)

// maxCustomID is Discord's limit on a component's custom_id.
const maxCustomID = 100

// maxSegments bounds the segments of a custom ID pattern.
const maxSegments = 6

// A router maps custom IDs to button handlers by pattern, in the manner of
// disgo's handler mux: a pattern is a list of ':'-separated segments, each a
// literal ("v1", "row") or a whole-segment variable ("{ticket}"). A custom ID
// matches a pattern when it has the same number of segments, every literal is
// equal and every variable is non-empty. Patterns are registered at startup
// (in New); a malformed or duplicate pattern is a programming error and
// panics there, never in a handler.
type router struct {
	routes []route
}

// route is one registered pattern.
type route struct {
	pattern string
	segs    []string // literal segments; "" where a variable stands
	names   []string // variable names, in order
	kind    string   // the name reported to the Observer ("reveal", "chest"…)
	h       buttonHandler
}

// params are the variables of a matched custom ID.
type params struct {
	n     int
	names [maxSegments]string
	vals  [maxSegments]string
}

// get returns the value of variable name, "" if the pattern has none.
func (p *params) get(name string) string {
	for i := 0; i < p.n; i++ {
		if p.names[i] == name {
			return p.vals[i]
		}
	}
	return ""
}

// add registers pattern. It panics on a malformed pattern or one that has the
// same shape as a registered one.
func (r *router) add(pattern, kind string, h buttonHandler) {
	if h == nil {
		panic(fmt.Sprintf("commands: router: nil handler for %q", pattern))
	}
	if len(pattern) == 0 || len(pattern) > maxCustomID {
		panic(fmt.Sprintf("commands: router: bad pattern length %q", pattern))
	}
	rt := route{pattern: pattern, kind: kind, h: h}
	seen := map[string]bool{}
	for _, s := range strings.Split(pattern, ":") {
		switch {
		case len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}':
			name := s[1 : len(s)-1]
			if !isWord(name) || seen[name] {
				panic(fmt.Sprintf("commands: router: bad or repeated variable %q in %q", s, pattern))
			}
			seen[name] = true
			rt.segs = append(rt.segs, "")
			rt.names = append(rt.names, name)
		case isWord(s):
			rt.segs = append(rt.segs, s)
		default:
			panic(fmt.Sprintf("commands: router: bad segment %q in %q", s, pattern))
		}
	}
	if len(rt.segs) > maxSegments {
		panic(fmt.Sprintf("commands: router: too many segments in %q", pattern))
	}
	for _, o := range r.routes {
		if sameShape(o.segs, rt.segs) {
			panic(fmt.Sprintf("commands: router: pattern %q duplicates %q", pattern, o.pattern))
		}
	}
	r.routes = append(r.routes, rt)
}

// match finds the route of a custom ID and its variables.
func (r *router) match(id string) (*route, params, bool) {
	var p params
	if len(id) == 0 || len(id) > maxCustomID {
		return nil, p, false
	}
	var segs [maxSegments]string
	n := 0
	for {
		i := strings.IndexByte(id, ':')
		if n == maxSegments {
			return nil, p, false
		}
		if i < 0 {
			segs[n] = id
			n++
			break
		}
		segs[n] = id[:i]
		n++
		id = id[i+1:]
	}
next:
	for k := range r.routes {
		rt := &r.routes[k]
		if len(rt.segs) != n {
			continue
		}
		p.n = 0
		for j, s := range rt.segs {
			if s == "" {
				if segs[j] == "" {
					continue next
				}
				p.names[p.n], p.vals[p.n] = rt.names[p.n], segs[j]
				p.n++
			} else if s != segs[j] {
				continue next
			}
		}
		return rt, p, true
	}
	return nil, params{}, false
}

// sameShape reports whether two patterns match the same custom IDs.
func sameShape(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// isWord reports whether s is a non-empty run of [a-z0-9-].
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
