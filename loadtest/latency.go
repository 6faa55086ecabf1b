package loadtest

import (
	"slices"
	"sync"
	"time"
)

// Latency summarises a set of durations (nanoseconds in JSON).
type Latency struct {
	N    int           `json:"n"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P95  time.Duration `json:"p95_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
}

// summarize returns the latencies' summary: percentiles by nearest rank.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Sorted(slices.Values(ds))
	var total time.Duration
	for _, d := range s {
		total += d
	}
	at := func(p int) time.Duration { return s[(p*len(s)+99)/100-1] }
	return Latency{N: len(s), Mean: total / time.Duration(len(s)), P50: at(50), P95: at(95), P99: at(99), Max: s[len(s)-1]}
}

// recording keeps every latency of one phase by kind (8 bytes each: 8 MB
// for a million), and the open loop's send delays. A nil *recording
// records nothing (a warm-up).
type recording struct {
	mu     sync.Mutex
	kinds  map[string][]time.Duration
	delays []time.Duration
}

func newRecording() *recording { return &recording{kinds: map[string][]time.Duration{}} }

// add records one interaction of kind k.
func (r *recording) add(k string, d time.Duration) {
	if r != nil {
		r.mu.Lock()
		r.kinds[k] = append(r.kinds[k], d)
		r.mu.Unlock()
	}
}

// addSendDelay records how late an open loop's interaction left.
func (r *recording) addSendDelay(d time.Duration) {
	if r != nil {
		r.mu.Lock()
		r.delays = append(r.delays, d)
		r.mu.Unlock()
	}
}

// summary returns the latencies per kind and, under KindAll, over every
// kind, and their number.
func (r *recording) summary() (map[string]Latency, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]Latency{}
	var all []time.Duration
	for k, ds := range r.kinds {
		out[k] = summarize(ds)
		all = append(all, ds...)
	}
	out[KindAll] = summarize(all)
	return out, int64(len(all))
}
