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
// for a million), and under sendDelay the open loop's delays from an
// interaction's schedule to its send. A nil *recording records nothing (a
// warm-up).
type recording struct {
	mu    sync.Mutex
	kinds map[string][]time.Duration
}

const sendDelay = "send delay"

// add records one interaction of kind k, or a send delay.
func (r *recording) add(k string, d time.Duration) {
	if r != nil {
		r.mu.Lock()
		r.kinds[k] = append(r.kinds[k], d)
		r.mu.Unlock()
	}
}

// summary returns the latencies per kind and, under KindAll, over every
// kind, and their number; and the send delays'.
func (r *recording) summary() (_ map[string]Latency, n int64, delays Latency) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]Latency{}
	var all []time.Duration
	for k, ds := range r.kinds {
		if k != sendDelay {
			out[k] = summarize(ds)
			all = append(all, ds...)
		}
	}
	out[KindAll] = summarize(all)
	return out, int64(len(all)), summarize(r.kinds[sendDelay])
}
