package metrics_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/internal/buildinfo"
	"github.com/lesclefsdutresor/clefs/metrics"
)

// The files of deploy/ that name the bot's metrics.
var (
	alertsFile    = filepath.Join("..", "deploy", "prometheus", "alerts.yml")
	dashboardFile = filepath.Join("..", "deploy", "grafana", "clefs-dashboard.json")
)

// TestDeployNamesExportedMetrics checks that every metric the alert rules and
// the Grafana dashboard query is one the bot serves on /metrics: a renamed
// metric must not leave an alert that can never fire or an empty panel.
func TestDeployNamesExportedMetrics(t *testing.T) {
	served := servedNames(t)
	for _, tc := range []struct {
		file  string
		exprs []string
	}{
		{alertsFile, alertExprs(t)},
		{dashboardFile, dashboardExprs(t)},
	} {
		if len(tc.exprs) == 0 {
			t.Errorf("%s: no expression found", tc.file)
		}
		used := 0
		for _, e := range tc.exprs {
			for _, name := range metricNames(e) {
				used++
				if !served[name] {
					t.Errorf("%s: %q names %s, which the bot does not serve on /metrics", tc.file, oneLine(e), name)
				}
			}
		}
		if used == 0 {
			t.Errorf("%s: no metric of the bot named in %d expressions", tc.file, len(tc.exprs))
		}
	}
}

// TestMetricNames checks the extraction the test above relies on: label
// names (go_version) and label values are not metric names.
func TestMetricNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`rate(clefs_plays_total[5m])`, []string{"clefs_plays_total"}},
		{`histogram_quantile(0.99, sum by (le, go_version) (rate(clefs_interaction_duration_seconds_bucket{job=~"$job", x="clefs_nope"}[$__rate_interval])))`,
			[]string{"clefs_interaction_duration_seconds_bucket"}},
		{`process_resident_memory_bytes / on (instance) group_left(go_version) go_goroutines`,
			[]string{"go_goroutines", "process_resident_memory_bytes"}},
		{`label_values(clefs_build_info{job=~"$job"}, instance)`, []string{"clefs_build_info"}},
		{`up{job="clefs"} == 0`, nil},
	} {
		if got := metricNames(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("metricNames(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// servedNames returns the names of the series the bot's /metrics serves
// (for a histogram: its _bucket, _sum and _count), with the registry built
// as cli/serve.go builds it and every metric observed once, since a vector
// shows no series before its first use.
func servedNames(t *testing.T) map[string]bool {
	t.Helper()
	reg := metrics.NewRegistry()
	m := metrics.New(reg)
	metrics.BuildInfo(reg, buildinfo.Info{Version: "v0.0.0-test", Revision: "0123abc"})
	m.Interaction("play", "ok", 20*time.Millisecond)
	m.Purchase(50)
	m.Play(game.TierLoss, true, 50, 0)
	m.Chest(0, 100)
	m.StoreError("reveal")
	m.ShardUp(0, true)
	m.Received("gateway", 0)
	m.Rejected("signature")
	m.RESTRequest("POST /interactions/:id/:token/callback", 204)
	m.RESTRateLimited("user")
	m.RESTRetry("rate_limit")
	m.RESTGaveUp("PATCH /webhooks/:id/:token/messages/@original")

	h := metrics.Handler(reg, nil, buildinfo.Info{}, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(context.Background(), http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	served := make(map[string]bool)
	sample := regexp.MustCompile(`(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]`)
	for _, s := range sample.FindAllStringSubmatch(rec.Body.String(), -1) {
		served[s[1]] = true
	}
	// Every family of the bot must be there, or the check above would
	// miss a metric only because this test never observed it.
	for _, want := range []string{"clefs_build_info", "clefs_discord_give_ups_total",
		"clefs_interaction_duration_seconds_bucket", "go_goroutines", "process_resident_memory_bytes"} {
		if !served[want] {
			t.Fatalf("/metrics does not serve %s:\n%s", want, rec.Body)
		}
	}
	return served
}

// alertExprs returns the expressions and the annotations of every rule of
// alerts.yml: an annotation that points the operator to a metric must name
// a real one too.
func alertExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Record      string            `yaml:"record"`
				Expr        string            `yaml:"expr"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", alertsFile, err)
	}
	var exprs []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Expr == "" {
				t.Errorf("%s: group %s: rule %s%s has no expr", alertsFile, g.Name, r.Alert, r.Record)
			}
			exprs = append(exprs, r.Expr)
			for _, a := range r.Annotations {
				exprs = append(exprs, a)
			}
		}
	}
	return exprs
}

// dashboardExprs returns every query of the dashboard: the panels' targets
// (expr) and the template variables' queries (definition).
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash any
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "expr" || k == "definition") {
					exprs = append(exprs, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(dash)
	return exprs
}

var (
	// labelParts are the parts of an expression that hold label names or
	// values, not metric names: matchers in braces, grouping lists, and
	// quoted strings.
	labelParts = regexp.MustCompile(`\{[^}]*\}|\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)|"[^"]*"`)
	// metricName matches the names of the bot's metrics and of the Go
	// and process collectors.
	metricName = regexp.MustCompile(`\b(?:clefs|go|process)_[a-zA-Z0-9_:]*[a-zA-Z0-9]`)
)

// metricNames returns the sorted, distinct metric names expr uses.
func metricNames(expr string) []string {
	names := metricName.FindAllString(labelParts.ReplaceAllString(expr, " "), -1)
	slices.Sort(names)
	return slices.Compact(names)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
