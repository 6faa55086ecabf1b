package metrics

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
)

// newTest returns Metrics registered on a fresh registry.
func newTest(tb testing.TB) (*Metrics, *prometheus.Registry) {
	tb.Helper()
	reg := prometheus.NewRegistry()
	return New(reg), reg
}

// value returns the value of the counter or gauge (or the sample count of
// the histogram) named name whose labels are exactly labels ("k=v" pairs), or -1
// if the registry has no such series.
func value(tb testing.TB, g prometheus.Gatherer, name string, labels ...string) float64 {
	tb.Helper()
	mfs, err := g.Gather()
	if err != nil {
		tb.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !sameLabels(m.GetLabel(), labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
			tb.Fatalf("%s: unexpected metric type %v", name, mf.GetType())
		}
	}
	return -1
}

// series is a series and the value it should read (-1: absent).
type series struct {
	name   string
	labels []string // "k=v" pairs
	value  float64
}

// checkSeries checks that every series of want reads its value on g.
func checkSeries(t *testing.T, g prometheus.Gatherer, want []series) {
	t.Helper()
	for _, w := range want {
		if got := value(t, g, w.name, w.labels...); got != w.value {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.value)
		}
	}
}

func sameLabels(got []*dto.LabelPair, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i, lp := range got {
		if lp.GetName()+"="+lp.GetValue() != want[i] {
			return false
		}
	}
	return true
}

func TestNewRegistersEverySeriesAtZero(t *testing.T) {
	_, reg := newTest(t)
	checkSeries(t, reg, []series{ // present before any event (-1 if absent)
		{"clefs_tickets_bought_total", nil, 0},
		{"clefs_plays_total", nil, 0},
		{"clefs_keys_collected_total", nil, 0},
		{"clefs_credits_staked_cents_total", nil, 0},
		{"clefs_credits_paid_cents_total", []string{"game=main"}, 0},
		{"clefs_credits_paid_cents_total", []string{"game=chest"}, 0},
		{"clefs_wins_total", []string{"tier=gem"}, 0},
		{"clefs_wins_total", []string{"tier=barrel"}, 0},
		{"clefs_chests_total", []string{"lot=three-gold"}, 0},
		{"clefs_chests_total", []string{"lot=bronze"}, 0},
		{"clefs_http_requests_rejected_total", []string{"reason=signature"}, 0},
		{"clefs_http_requests_rejected_total", []string{"reason=stale"}, 0},
		{"clefs_http_requests_rejected_total", []string{"reason=replay"}, 0},
		{"clefs_discord_rate_limited_total", []string{"scope=user"}, 0},
		{"clefs_discord_rate_limited_total", []string{"scope=global"}, 0},
		{"clefs_discord_rate_limited_total", []string{"scope=shared"}, 0},
		{"clefs_discord_rate_limited_total", []string{"scope=unknown"}, 0},
		{"clefs_discord_retries_total", []string{"reason=connection"}, 0},
	})
	if n := testutil.CollectAndCount(reg, "clefs_wins_total"); n != 6 {
		t.Errorf("clefs_wins_total has %d series, want one per winning tier (6)", n)
	}
	if n := testutil.CollectAndCount(reg, "clefs_chests_total"); n != game.NumLots {
		t.Errorf("clefs_chests_total has %d series, want %d", n, game.NumLots)
	}
	if n := testutil.CollectAndCount(reg, "clefs_http_requests_rejected_total"); n != 7 {
		t.Errorf("clefs_http_requests_rejected_total has %d series, want one per reason (7)", n)
	}
	// Shards are not known in advance: no series until the bot reports one.
	if n := testutil.CollectAndCount(reg, "clefs_gateway_shard_up", "clefs_interactions_received_total"); n != 0 {
		t.Errorf("shard series before any event: %d, want 0", n)
	}
}

func TestNewTwiceOnOneRegistryPanics(t *testing.T) {
	reg := prometheus.NewRegistry()
	New(reg)
	defer func() {
		if recover() == nil {
			t.Error("second New on the same registry did not panic")
		}
	}()
	New(reg)
}

func TestEventsMoveCounters(t *testing.T) {
	tests := []struct {
		name  string
		event func(m *Metrics)
		want  []series
	}{
		{
			name:  "purchase",
			event: func(m *Metrics) { m.Purchase(game.Stake) },
			want: []series{
				{"clefs_tickets_bought_total", nil, 1},
				{"clefs_credits_staked_cents_total", nil, 50},
			},
		},
		{
			name:  "losing play with a key",
			event: func(m *Metrics) { m.Play(game.TierLoss, true, game.Stake, 0) },
			want: []series{
				{"clefs_plays_total", nil, 1},
				{"clefs_keys_collected_total", nil, 1},
				{"clefs_credits_paid_cents_total", []string{"game=main"}, 0},
				{"clefs_credits_staked_cents_total", nil, 0}, // counted by Purchase only
			},
		},
		{
			name:  "gem win",
			event: func(m *Metrics) { m.Play(game.TierGem, false, game.Stake, 500000) },
			want: []series{
				{"clefs_plays_total", nil, 1},
				{"clefs_wins_total", []string{"tier=gem"}, 1},
				{"clefs_wins_total", []string{"tier=pipe"}, 0},
				{"clefs_keys_collected_total", nil, 0},
				{"clefs_credits_paid_cents_total", []string{"game=main"}, 500000},
			},
		},
		{
			name:  "chest",
			event: func(m *Metrics) { m.Chest(game.LotSilver, 100) },
			want: []series{
				{"clefs_chests_total", []string{"lot=silver"}, 1},
				{"clefs_chests_total", []string{"lot=gold"}, 0},
				{"clefs_credits_paid_cents_total", []string{"game=chest"}, 100},
				{"clefs_credits_paid_cents_total", []string{"game=main"}, 0},
			},
		},
		{
			name:  "interaction",
			event: func(m *Metrics) { m.Interaction("play", "ok", 3*time.Millisecond) },
			want: []series{
				{"clefs_interactions_total", []string{"command=play", "outcome=ok"}, 1},
				{"clefs_interaction_duration_seconds", []string{"command=play"}, 1},
			},
		},
		{
			name:  "store error",
			event: func(m *Metrics) { m.StoreError("reveal") },
			want:  []series{{"clefs_store_errors_total", []string{"op=reveal"}, 1}},
		},
		{
			name:  "damaged record",
			event: func(m *Metrics) { m.DamagedRecord(); m.DamagedRecord() },
			want:  []series{{"clefs_damaged_records_total", nil, 2}},
		},
		{
			name: "shards going up and down",
			event: func(m *Metrics) {
				m.ShardUp(0, true)
				m.ShardUp(1, true)
				m.ShardUp(1, false)
			},
			want: []series{
				{"clefs_gateway_shard_up", []string{"shard=0"}, 1},
				{"clefs_gateway_shard_up", []string{"shard=1"}, 0},
				{"clefs_gateway_shard_up", []string{"shard=2"}, -1},
			},
		},
		{
			name: "interactions received by transport and shard",
			event: func(m *Metrics) {
				m.Received("gateway", 0)
				m.Received("gateway", 3)
				m.Received("gateway", 3)
				m.Received("http", -1)
			},
			want: []series{
				{"clefs_interactions_received_total", []string{"shard=0", "transport=gateway"}, 1},
				{"clefs_interactions_received_total", []string{"shard=3", "transport=gateway"}, 2},
				// No shard for HTTP: an empty value, which Prometheus stores as no label.
				{"clefs_interactions_received_total", []string{"shard=", "transport=http"}, 1},
			},
		},
		{
			name: "HTTP requests rejected",
			event: func(m *Metrics) {
				m.Rejected("signature")
				m.Rejected("signature")
				m.Rejected("too_large")
			},
			want: []series{
				{"clefs_http_requests_rejected_total", []string{"reason=signature"}, 2},
				{"clefs_http_requests_rejected_total", []string{"reason=too_large"}, 1},
				{"clefs_http_requests_rejected_total", []string{"reason=stale"}, 0},
				{"clefs_http_requests_rejected_total", []string{"reason=replay"}, 0},
			},
		},
		{
			name: "REST calls to Discord",
			event: func(m *Metrics) {
				const edit = "PATCH /webhooks/:id/:token/messages/@original"
				m.RESTRequest(edit, 429)
				m.RESTRequest(edit, 200)
				m.RESTRequest(edit, 0)
				m.RESTRequest(edit, 1000) // not a status: "error"
				m.RESTRateLimited("global")
				m.RESTRateLimited("bucket") // unknown scope: "other"
				m.RESTRetry("rate_limit")
				m.RESTRetry("server_error")
				m.RESTRetry("cosmic rays")
				m.RESTGaveUp(edit)
			},
			want: []series{
				{"clefs_discord_requests_total", []string{"route=PATCH /webhooks/:id/:token/messages/@original", "status=429"}, 1},
				{"clefs_discord_requests_total", []string{"route=PATCH /webhooks/:id/:token/messages/@original", "status=200"}, 1},
				{"clefs_discord_requests_total", []string{"route=PATCH /webhooks/:id/:token/messages/@original", "status=error"}, 2},
				{"clefs_discord_rate_limited_total", []string{"scope=global"}, 1},
				{"clefs_discord_rate_limited_total", []string{"scope=user"}, 0},
				{"clefs_discord_rate_limited_total", []string{"scope=other"}, 1},
				{"clefs_discord_retries_total", []string{"reason=rate_limit"}, 1},
				{"clefs_discord_retries_total", []string{"reason=server_error"}, 1},
				{"clefs_discord_retries_total", []string{"reason=timeout"}, 0},
				{"clefs_discord_retries_total", []string{"reason=other"}, 1},
				{"clefs_discord_give_ups_total", []string{"route=PATCH /webhooks/:id/:token/messages/@original"}, 1},
			},
		},
		{
			name: "bad arguments are ignored or folded, never panic",
			event: func(m *Metrics) {
				m.Purchase(-50)
				m.Play(game.Tier(200), false, -1, -7)
				m.Chest(game.Lot(99), -3)
				m.Interaction("play", "weird", -time.Second)
				m.ShardUp(-1, true)
				m.ShardUp(maxShards, true)
				m.Received("carrier pigeon", 2)
				m.Received("gateway", 1<<40)
				m.Rejected("Signature 1234567890123")
			},
			want: []series{
				{"clefs_tickets_bought_total", nil, 1},
				{"clefs_credits_staked_cents_total", nil, 0},
				{"clefs_plays_total", nil, 1},
				{"clefs_credits_paid_cents_total", []string{"game=main"}, 0},
				{"clefs_chests_total", []string{"lot=other"}, 1},
				{"clefs_credits_paid_cents_total", []string{"game=chest"}, 0},
				{"clefs_interactions_total", []string{"command=play", "outcome=other"}, 1},
				{"clefs_interaction_duration_seconds", []string{"command=play"}, -1}, // negative duration not observed
				{"clefs_gateway_shard_up", []string{"shard=other"}, 1},
				{"clefs_interactions_received_total", []string{"shard=2", "transport=other"}, 1},
				{"clefs_interactions_received_total", []string{"shard=other", "transport=gateway"}, 1},
				{"clefs_http_requests_rejected_total", []string{"reason=other"}, 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, reg := newTest(t)
			tt.event(m)
			checkSeries(t, reg, tt.want)
		})
	}
}

func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	BuildInfo(reg, buildinfo.Info{Version: "v1.4.0", Revision: "5effcde", GoVersion: "go1.26.8"})
	want := `
# HELP clefs_build_info Always 1; its labels name the running build (version, revision, go_version).
# TYPE clefs_build_info gauge
clefs_build_info{go_version="go1.26.8",revision="5effcde",version="v1.4.0"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "clefs_build_info"); err != nil {
		t.Error(err)
	}
}

func TestLatencyHistogramBuckets(t *testing.T) {
	m, reg := newTest(t)
	m.Interaction("reveal", "ok", 2*time.Millisecond)   // ≤ 2.5 ms
	m.Interaction("reveal", "ok", 40*time.Millisecond)  // ≤ 50 ms
	m.Interaction("reveal", "ok", 700*time.Millisecond) // ≤ 1 s
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var h *dto.Histogram
	for _, mf := range mfs {
		if mf.GetName() == "clefs_interaction_duration_seconds" {
			h = mf.GetMetric()[0].GetHistogram()
		}
	}
	if h == nil {
		t.Fatal("no clefs_interaction_duration_seconds")
	}
	cum := map[float64]uint64{}
	for _, b := range h.GetBucket() {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for bound, want := range map[float64]uint64{.001: 0, .0025: 1, .025: 1, .05: 2, .5: 2, 1: 3, 10: 3} {
		if got, ok := cum[bound]; !ok || got != want {
			t.Errorf("bucket le=%v: cumulative count %d (present %v), want %d", bound, got, ok, want)
		}
	}
	if got, want := h.GetSampleSum(), 0.742; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("sample sum = %v, want %v", got, want)
	}
}

func TestLabelValuesAreBounded(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"play", "play"},
		{"admin grant", "admin grant"},
		{"play/row", "play/row"},
		{"", other},
		{"Play", other},                      // upper case: not one of ours
		{"123456789012345678", other},        // a snowflake
		{"play:123456789012345678:3", other}, // a custom id with a user id
		{"row 1", "row 1"},                   // short numbers are fine
		{strings.Repeat("a", maxLabelLen+1), other},
		{"héros", other},
	}
	for _, tt := range tests {
		m, reg := newTest(t)
		m.StoreError(tt.in)
		if got := value(t, reg, "clefs_store_errors_total", "op="+tt.want); got != 1 {
			t.Errorf("StoreError(%q): series op=%q = %v, want 1", tt.in, tt.want, got)
		}
	}

	// Past maxLabelValues distinct values, new ones fold into "other"
	// while the values already seen keep their own series.
	m, reg := newTest(t)
	for i := 0; i < maxLabelValues+10; i++ {
		m.Interaction(fmt.Sprintf("cmd%d", i), "ok", time.Millisecond)
	}
	m.Interaction("cmd0", "ok", time.Millisecond)
	if n := testutil.CollectAndCount(reg, "clefs_interactions_total"); n != maxLabelValues+1 {
		t.Errorf("clefs_interactions_total has %d series, want %d (+1 for other)", n, maxLabelValues+1)
	}
	if got := value(t, reg, "clefs_interactions_total", "command=other", "outcome=ok"); got != 10 {
		t.Errorf("command=other = %v, want 10", got)
	}
	if got := value(t, reg, "clefs_interactions_total", "command=cmd0", "outcome=ok"); got != 2 {
		t.Errorf("command=cmd0 = %v, want 2", got)
	}
}

func TestConcurrentEventsAreAllCounted(t *testing.T) {
	m, reg := newTest(t)
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				m.Purchase(game.Stake)
				m.Play(game.TierBarrel, false, game.Stake, 50)
				m.Interaction(fmt.Sprintf("c%d", i%5), "ok", time.Millisecond)
				m.Received("gateway", i%2)
				m.Rejected("stale")
			}
		}()
	}
	wg.Wait()
	const n = goroutines * each
	checkSeries(t, reg, []series{
		{"clefs_tickets_bought_total", nil, n},
		{"clefs_credits_staked_cents_total", nil, n * 50},
		{"clefs_plays_total", nil, n},
		{"clefs_wins_total", []string{"tier=barrel"}, n},
		{"clefs_credits_paid_cents_total", []string{"game=main"}, n * 50},
		{"clefs_interactions_total", []string{"command=c3", "outcome=ok"}, n / 5},
		{"clefs_interactions_received_total", []string{"shard=1", "transport=gateway"}, n / 2},
		{"clefs_http_requests_rejected_total", []string{"reason=stale"}, n},
	})
}

func BenchmarkInteraction(b *testing.B) {
	m, _ := newTest(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Interaction("reveal", "ok", 2*time.Millisecond)
		}
	})
}

func BenchmarkPlay(b *testing.B) {
	m, _ := newTest(b)
	b.ReportAllocs()
	for b.Loop() {
		m.Play(game.TierCandle, false, game.Stake, 100)
	}
}

// A route that carries an ID or a token (a bug upstream of the metrics)
// is never a label value.
func TestRESTRoutesAreBounded(t *testing.T) {
	m, reg := newTest(t)
	for _, bad := range []string{
		"POST /interactions/1234567890123456789/aW50ZXJhY3Rpb24/callback",
		"POST /interactions/:id/ABCdef/callback",
		"post /users/@me",
		"GET users",
		"",
	} {
		m.RESTRequest(bad, 200)
	}
	if got := value(t, reg, "clefs_discord_requests_total", "route=other", "status=200"); got != 5 {
		t.Fatalf("malformed routes counted as other: %v, want 5", got)
	}
	for k := range 2 * maxLabelValues {
		m.RESTGaveUp(fmt.Sprintf("GET /r%d", k))
	}
	if n := testutil.CollectAndCount(reg, "clefs_discord_give_ups_total"); n != maxLabelValues+1 {
		t.Fatalf("%d give-up series, want %d and other", n, maxLabelValues)
	}
}
