package metrics

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

// Metrics counts the bot's events as Prometheus collectors. Every method is
// cheap, safe for concurrent use and never panics, whatever its arguments: a
// negative amount is ignored, an unexpected label value is folded into
// "other".
type Metrics struct {
	interactions, received, rejected        *prometheus.CounterVec // the interactions
	latency                                 *prometheus.HistogramVec
	tickets, plays, keys, staked, damaged   prometheus.Counter // the game and its store
	wins, chests, paid, storeErrors         *prometheus.CounterVec
	shardUp                                 *prometheus.GaugeVec   // the gateway
	restReqs, rateLimited, retries, giveUps *prometheus.CounterVec // Discord's REST API
	snapshotAt                              prometheus.Gauge       // the embedded store's snapshots
	snapshotFailures                        prometheus.Counter

	// The values admitted for the labels "command", "op", "reason" and "route".
	commands, ops, reasons, routes labelSet
}

// The fixed label sets; any other value is counted as "other".
var (
	outcomes   = []string{"ok", "user_error", "internal_error"} // of an interaction
	transports = []string{"gateway", "http"}                    // an interaction arrives by
	// rejectReasons are the HTTP interactions endpoint's (bot.Endpoint), created at 0 by New.
	rejectReasons = []string{"signature", "method", "content_type", "too_large", "malformed", "stale", "replay"}
	// rateLimitScopes are a 429's (X-RateLimit-Scope; "unknown" when Discord said none).
	rateLimitScopes = []string{"user", "global", "shared", "unknown"}
	retryReasons    = []string{"rate_limit", "server_error", "timeout", "connection"} // the REST transport's
)

const (
	// maxShards bounds the "shard" label. A shard holds up to 2,500
	// guilds: 1,024 shards is far more than this bot will run.
	maxShards = 1024
	// maxLabelValues bounds the distinct values of a free-form label: the
	// callers' sets are far smaller; it guards Prometheus against a bug.
	maxLabelValues = 64
	maxLabelLen    = 48      // a free-form label value's length
	other          = "other" // the label value for anything outside the expected set
)

// New creates the collectors and registers them on reg. It panics, as
// prometheus.MustRegister does, if one is already there: call it once per registry.
func New(reg prometheus.Registerer) *Metrics {
	f := promauto.With(reg)
	counter := func(name, help string) prometheus.Counter {
		return f.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return f.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &Metrics{
		interactions: counterVec("clefs_interactions_total",
			"Interactions handled, by command or button and by outcome (ok, user_error, internal_error).", "command", "outcome"),
		latency: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "clefs_interaction_duration_seconds",
			Help: "Time to handle one interaction, by command or button.",
			// From 1 ms to 10 s: a handler does one or two store round trips
			// and a Discord call, and Discord gives up after 3 s.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"command"}),
		tickets: counter("clefs_tickets_bought_total", "Tickets bought (stake debited)."),
		plays:   counter("clefs_plays_total", "Plays drawn (main game), winning or not."),
		wins: counterVec("clefs_wins_total",
			"Winning plays of the main game, by tier (gem, pipe, bomb, sabre, candle, barrel).", "tier"),
		keys: counter("clefs_keys_collected_total", "Keys collected on losing plays."),
		chests: counterVec("clefs_chests_total",
			"Treasure chests opened, by lot (three-gold, gold, silver, bronze).", "lot"),
		staked: counter("clefs_credits_staked_cents_total", "Credits staked on tickets, in cents."),
		paid: counterVec("clefs_credits_paid_cents_total",
			"Credits paid as prizes, in cents, by game (main, chest).", "game"),
		storeErrors: counterVec("clefs_store_errors_total",
			"Internal errors of the player store, by operation.", "op"),
		damaged: counter("clefs_damaged_records_total",
			"Player records met that do not decode: refused to a step, or left out of a leaderboard (/admin reset rewrites one)."),
		shardUp: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "clefs_gateway_shard_up",
			Help: "1 while the gateway shard is connected and ready, 0 otherwise.",
		}, []string{"shard"}),
		received: counterVec("clefs_interactions_received_total",
			"Interactions received, by transport (gateway, http) and gateway shard (empty for http).", "transport", "shard"),
		rejected: counterVec("clefs_http_requests_rejected_total",
			"Requests the HTTP interactions endpoint refused, by reason (signature, method, content_type, too_large, malformed, stale, replay).", "reason"),
		restReqs: counterVec("clefs_discord_requests_total",
			"HTTP requests sent to Discord's REST API (each attempt), by route template (\"PATCH /webhooks/:id/:token/messages/@original\") and status code (\"error\": no response).", "route", "status"),
		rateLimited: counterVec("clefs_discord_rate_limited_total",
			"429 answers from Discord's REST API, by scope (user, global, shared, unknown).", "scope"),
		retries: counterVec("clefs_discord_retries_total",
			"REST calls to Discord retried, by reason (rate_limit, server_error, timeout, connection).", "reason"),
		giveUps: counterVec("clefs_discord_give_ups_total",
			"REST calls to Discord given up (no attempt left, a wait past the deadline, a POST that may have been applied), by route template.", "route"),
		snapshotAt: f.NewGauge(prometheus.GaugeOpts{
			Name: "clefs_snapshot_last_success_timestamp_seconds",
			Help: "When the last snapshot of the embedded store (BACKUP_DIR) was taken, Unix seconds; 0 before the first.",
		}),
		snapshotFailures: counter("clefs_snapshot_failures_total",
			"Snapshots of the embedded store (BACKUP_DIR) that failed."),
	}

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
	for _, r := range rejectReasons {
		m.rejected.WithLabelValues(m.reasons.value(r, wellFormed))
	}
	for _, s := range rateLimitScopes {
		m.rateLimited.WithLabelValues(s)
	}
	for _, r := range retryReasons {
		m.retries.WithLabelValues(r)
	}
	return m
}

// Interaction counts one handled interaction (commands.Observer) and
// observes its duration.
func (m *Metrics) Interaction(command, outcome string, d time.Duration) {
	command = m.commands.value(command, wellFormed)
	m.interactions.WithLabelValues(command, oneOf(outcome, outcomes)).Inc()
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

// Snapshot records a snapshot of the embedded store taken at at, or one
// that failed (ok false).
func (m *Metrics) Snapshot(ok bool, at time.Time) {
	if !ok {
		m.snapshotFailures.Inc()
		return
	}
	m.snapshotAt.Set(float64(at.Unix()))
}

// StoreError counts one internal error of the store during operation op.
func (m *Metrics) StoreError(op string) {
	m.storeErrors.WithLabelValues(m.ops.value(op, wellFormed)).Inc()
}

// DamagedRecord counts one player record met that does not decode.
func (m *Metrics) DamagedRecord() { m.damaged.Inc() }

// ShardUp records whether gateway shard shard is connected (up) or not.
func (m *Metrics) ShardUp(shard int, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.shardUp.WithLabelValues(shardLabel(shard)).Set(v)
}

// Received counts one interaction (bot.Observer). HTTP's shard, -1, is
// exported as shard="", which Prometheus stores as no shard label at all
// (select it with {shard=""}).
func (m *Metrics) Received(transport string, shard int) {
	label := ""
	if shard >= 0 {
		label = shardLabel(shard)
	}
	m.received.WithLabelValues(oneOf(transport, transports), label).Inc()
}

// Rejected counts one request the HTTP interactions endpoint refused.
func (m *Metrics) Rejected(reason string) {
	m.rejected.WithLabelValues(m.reasons.value(reason, wellFormed)).Inc()
}

// RESTRequest counts one attempt of a REST call (bot.RESTObserver); status 0
// is exported as "error", a route not wellFormedRoute as "other".
func (m *Metrics) RESTRequest(route string, status int) {
	label := "error"
	if status >= 100 && status <= 599 {
		label = strconv.Itoa(status)
	}
	m.restReqs.WithLabelValues(m.routes.value(route, wellFormedRoute), label).Inc()
}

// RESTRateLimited counts one 429 by scope (rateLimitScopes, or "other").
func (m *Metrics) RESTRateLimited(scope string) {
	m.rateLimited.WithLabelValues(oneOf(scope, rateLimitScopes)).Inc()
}

// RESTRetry counts one retry by reason (retryReasons, or "other").
func (m *Metrics) RESTRetry(reason string) {
	m.retries.WithLabelValues(oneOf(reason, retryReasons)).Inc()
}

func oneOf(v string, set []string) string {
	if slices.Contains(set, v) {
		return v
	}
	return other
}

// RESTGaveUp counts one REST call given up on route (as for RESTRequest).
func (m *Metrics) RESTGaveUp(route string) {
	m.giveUps.WithLabelValues(m.routes.value(route, wellFormedRoute)).Inc()
}

// wellFormedRoute accepts a route template of at most 96 bytes: an
// upper-case method, a space, and a plainLabel path ("/webhooks/:id/:token").
func wellFormedRoute(v string) bool {
	method, path, ok := strings.Cut(v, " ")
	if !ok || method == "" || len(v) > 96 || !strings.HasPrefix(path, "/") {
		return false
	}
	return strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && plainLabel(path, "/:@_-.")
}

// shardLabel is the "shard" label value of shard: its decimal number, or
// "other" outside [0, maxShards).
func shardLabel(shard int) string {
	if shard < 0 || shard >= maxShards {
		return other
	}
	return strconv.Itoa(shard)
}

// BuildInfo registers on reg the gauge clefs_build_info, set to 1, whose
// labels name build as GET /version does. It panics, as New does, if reg
// already holds it, or if a label is not valid UTF-8.
func BuildInfo(reg prometheus.Registerer, build buildinfo.Info) {
	promauto.With(reg).NewGauge(prometheus.GaugeOpts{
		Name: "clefs_build_info",
		Help: "Always 1; its labels name the running build (version, revision, go_version).",
		ConstLabels: prometheus.Labels{
			"version":    build.Version,
			"revision":   build.Revision,
			"go_version": build.GoVersion,
		},
	}).Set(1)
}

// labelSet admits a bounded number of distinct, well-formed label values;
// the zero value is empty.
type labelSet struct {
	mu   sync.Mutex
	seen map[string]bool
}

// value returns v if ok finds it well formed and the set has room for it
// (or already holds it), and "other" otherwise.
func (s *labelSet) value(v string, ok func(string) bool) string {
	if !ok(v) {
		return other
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seen[v] {
		if len(s.seen) >= maxLabelValues {
			return other
		}
		if s.seen == nil {
			s.seen = make(map[string]bool)
		}
		s.seen[v] = true
	}
	return v
}

// wellFormed accepts short plainLabel values with the separators " ", "_",
// "-", "." and "/" ("admin grant", "play/row").
func wellFormed(v string) bool {
	return v != "" && len(v) <= maxLabelLen && plainLabel(v, " _-./")
}

// plainLabel reports whether v is made of lower-case ASCII letters, digits
// and the bytes of seps, with no run of more than 6 digits (a snowflake:
// a user, guild or message ID).
func plainLabel(v, seps string) bool {
	digits := 0
	for _, c := range []byte(v) {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', strings.IndexByte(seps, c) >= 0:
			digits = 0
		default:
			return false
		}
		if digits > 6 {
			return false
		}
	}
	return true
}
