package loadtest

import (
	"math/bits"
	"sync/atomic"
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

// A histogram counts durations in log-linear buckets: exact below 64 ns,
// then 64 buckets per power of two (relative error under 1.6%). It has a
// fixed size (about 19 KB), whatever the number of samples, so that the
// load generator's memory does not grow with the length of a run, and it is
// safe for concurrent use (atomic counters).
type histogram struct {
	counts [histBuckets]atomic.Uint64
	n      atomic.Int64
	sum    atomic.Int64
	max    atomic.Int64
}

const (
	histSubBits = 6
	histSub     = 1 << histSubBits
	histMaxExp  = 42 // 2^48 ns ≈ 78 hours: beyond, values are clamped
	histBuckets = (histMaxExp + 1) * histSub
)

func bucketOf(v int64) int {
	if v < 0 {
		v = 0
	}
	u := uint64(v)
	msb := bits.Len64(u) - 1
	if msb < histSubBits {
		return int(u)
	}
	shift := msb - histSubBits
	if shift >= histMaxExp {
		return histBuckets - 1
	}
	return (shift+1)<<histSubBits + int(u>>shift) - histSub
}

// bucketValue returns the middle of bucket i.
func bucketValue(i int) int64 {
	if i < histSub {
		return int64(i)
	}
	shift := i>>histSubBits - 1
	low := uint64(histSub+i&(histSub-1)) << shift
	return int64(low + (uint64(1)<<shift)/2)
}

// add records one duration in nanoseconds.
func (h *histogram) add(v int64) {
	h.counts[bucketOf(v)].Add(1)
	h.n.Add(1)
	h.sum.Add(v)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// merge adds o's counts to h.
func (h *histogram) merge(o *histogram) {
	for i := range o.counts {
		if c := o.counts[i].Load(); c != 0 {
			h.counts[i].Add(c)
		}
	}
	h.n.Add(o.n.Load())
	h.sum.Add(o.sum.Load())
	if m := o.max.Load(); m > h.max.Load() {
		h.max.Store(m)
	}
}

// summary returns the histogram's latency summary (percentiles by nearest
// rank, to the bucket's middle; mean and max exact).
func (h *histogram) summary() Latency {
	n := h.n.Load()
	if n == 0 {
		return Latency{}
	}
	l := Latency{N: int(n), Mean: time.Duration(h.sum.Load() / n), Max: time.Duration(h.max.Load())}
	targets := []struct {
		p   int64
		dst *time.Duration
	}{{50, &l.P50}, {95, &l.P95}, {99, &l.P99}}
	var seen int64
	t := 0
	for i := range h.counts {
		seen += int64(h.counts[i].Load())
		for t < len(targets) && seen >= (targets[t].p*n+99)/100 {
			v := min(bucketValue(i), h.max.Load())
			*targets[t].dst = time.Duration(v)
			t++
		}
		if t == len(targets) {
			break
		}
	}
	return l
}

// recording holds the latencies of one phase, one histogram per kind of
// interaction. A nil *recording records nothing (the warm-up).
type recording struct {
	kinds     map[string]*histogram
	sendDelay histogram // open loop: from the schedule to the send
}

func newRecording() *recording {
	r := &recording{kinds: map[string]*histogram{}}
	for _, k := range kinds {
		r.kinds[k] = &histogram{}
	}
	return r
}

// add records one interaction of kind k.
func (r *recording) add(k string, d time.Duration) {
	if r != nil {
		r.kinds[k].add(int64(d))
	}
}

// addSendDelay records how late an open loop's interaction left.
func (r *recording) addSendDelay(d time.Duration) {
	if r != nil {
		r.sendDelay.add(int64(d))
	}
}

// summary returns the latencies per kind (kinds with samples only) and,
// under "all", over every kind.
func (r *recording) summary() map[string]Latency {
	out := map[string]Latency{}
	var all histogram
	for _, k := range kinds {
		h := r.kinds[k]
		if h.n.Load() > 0 {
			out[k] = h.summary()
		}
		all.merge(h)
	}
	out[KindAll] = all.summary()
	return out
}
