package metrics

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lesclefsdutresor/clefs/game"
)

// Metrics counts the bot's events as Prometheus collectors. Its methods are
// those commands.Observer asks for (the package does not import commands:
// the bot's wiring asserts that *Metrics satisfies it). Every method is
// cheap, safe for concurrent use and never panics, whatever its arguments: a
// negative amount is ignored, an unexpected label value is folded into
// "other".
type Metrics struct {
	interactions *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	tickets      prometheus.Counter
	plays        prometheus.Counter
	wins         *prometheus.CounterVec
	keys         prometheus.Counter
	chests       *prometheus.CounterVec
	staked       prometheus.Counter
	paid         *prometheus.CounterVec
	storeErrors  *prometheus.CounterVec

	commands labelSet // values admitted for the "command" label
	ops      labelSet // values admitted for the "op" label
}

// LatencyBuckets are the upper bounds, in seconds, of the handler latency
// histogram: from 1 ms to 10 s, since a handler does one or two store round
// trips and a Discord call, and Discord gives up after 3 s.
var LatencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Outcomes of an interaction, as the command handlers report them. Any other
// value is counted as "other".
var outcomes = []string{"ok", "user_error", "internal_error"}

// maxLabelValues bounds the distinct values of the free-form labels
// ("command", "op"): once reached, new values are counted as "other". The
// commands package sends a fixed set far smaller than this; the bound only
// protects Prometheus from a bug that would put user input in a label.
const maxLabelValues = 64

// maxLabelLen bounds the length of a free-form label value.
const maxLabelLen = 48

// other is the label value for anything outside the expected set.
const other = "other"

// New creates the collectors and registers them on reg. It panics if one of
// them is already registered on reg (as prometheus.MustRegister does): call it
// once per registry, at start-up. Tests use a fresh prometheus.NewRegistry().
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		interactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clefs_interactions_total",
			Help: "Interactions handled, by command or button and by outcome (ok, user_error, internal_error).",
		}, []string{"command", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "clefs_interaction_duration_seconds",
			Help:    "Time to handle one interaction, by command or button.",
			Buckets: LatencyBuckets,
		}, []string{"command"}),
		tickets: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clefs_tickets_bought_total",
			Help: "Tickets bought (stake debited).",
		}),
		plays: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clefs_plays_total",
			Help: "Plays drawn (main game), winning or not.",
		}),
		wins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clefs_wins_total",
			Help: "Winning plays of the main game, by tier (gem, pipe, bomb, sabre, candle, barrel).",
		}, []string{"tier"}),
		keys: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clefs_keys_collected_total",
			Help: "Keys collected on losing plays.",
		}),
		chests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clefs_chests_total",
			Help: "Treasure chests opened, by lot (three-gold, gold, silver, bronze).",
		}, []string{"lot"}),
		staked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clefs_credits_staked_cents_total",
			Help: "Credits staked on tickets, in cents.",
		}),
		paid: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clefs_credits_paid_cents_total",
			Help: "Credits paid as prizes, in cents, by game (main, chest).",
		}, []string{"game"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clefs_store_errors_total",
			Help: "Internal errors of the player store, by operation.",
		}, []string{"op"}),
		commands: newLabelSet(),
		ops:      newLabelSet(),
	}
	reg.MustRegister(m.interactions, m.latency, m.tickets, m.plays, m.wins, m.keys,
		m.chests, m.staked, m.paid, m.storeErrors)

	// Create the series of the fixed label sets up front, so that they read 0
	// rather than being absent until the first event (rate() needs both ends).
	for t := game.TierLoss + 1; t < game.NumTiers; t++ {
		m.wins.WithLabelValues(t.String())
	}
	for l := game.Lot(0); l < game.NumLots; l++ {
		m.chests.WithLabelValues(l.String())
	}
	m.paid.WithLabelValues("main")
	m.paid.WithLabelValues("chest")
	return m
}

// Interaction counts one handled interaction and observes its duration.
// command is a command or button name from a fixed set (never user input);
// outcome is "ok", "user_error" or "internal_error".
func (m *Metrics) Interaction(command, outcome string, d time.Duration) {
	command = m.commands.value(command)
	if !slices.Contains(outcomes, outcome) {
		outcome = other
	}
	m.interactions.WithLabelValues(command, outcome).Inc()
	if d >= 0 {
		m.latency.WithLabelValues(command).Observe(d.Seconds())
	}
}

// Play counts one drawn play: its tier, the key collected and the prize paid.
// The stake is not counted here but in Purchase, when it is debited, so that
// a ticket bought and not yet drawn is counted once.
func (m *Metrics) Play(tier game.Tier, key bool, stake, prize int64) {
	m.plays.Inc()
	if tier.Winning() {
		m.wins.WithLabelValues(tier.String()).Inc()
	}
	if key {
		m.keys.Inc()
	}
	if prize > 0 {
		m.paid.WithLabelValues("main").Add(float64(prize))
	}
}

// Chest counts one opened chest and its prize.
func (m *Metrics) Chest(lot game.Lot, prize int64) {
	label := other
	if lot < game.NumLots {
		label = lot.String()
	}
	m.chests.WithLabelValues(label).Inc()
	if prize > 0 {
		m.paid.WithLabelValues("chest").Add(float64(prize))
	}
}

// Purchase counts one ticket bought and its stake.
func (m *Metrics) Purchase(stake int64) {
	m.tickets.Inc()
	if stake > 0 {
		m.staked.Add(float64(stake))
	}
}

// StoreError counts one internal error of the store during operation op
// ("buy", "reveal"…, from a fixed set).
func (m *Metrics) StoreError(op string) {
	m.storeErrors.WithLabelValues(m.ops.value(op)).Inc()
}

// labelSet admits a bounded number of distinct, well-formed label values.
type labelSet struct {
	mu   sync.Mutex
	seen map[string]bool
}

func newLabelSet() labelSet { return labelSet{seen: make(map[string]bool)} }

// value returns v if it is a well-formed label value and the set has room
// for it (or already holds it), and "other" otherwise.
func (s *labelSet) value(v string) string {
	if !wellFormed(v) {
		return other
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seen[v] {
		if len(s.seen) >= maxLabelValues {
			return other
		}
		s.seen[v] = true
	}
	return v
}

// wellFormed accepts short values made of lower-case ASCII letters, digits,
// and the separators " ", "_", "-", "." and "/" ("admin grant", "play/row").
// A Discord snowflake (a long run of digits) is refused: it would be a user,
// guild or message id.
func wellFormed(v string) bool {
	if v == "" || len(v) > maxLabelLen {
		return false
	}
	digits := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > 6 {
				return false
			}
			continue
		case c >= 'a' && c <= 'z', strings.IndexByte(" _-./", c) >= 0:
		default:
			return false
		}
		digits = 0
	}
	return true
}
