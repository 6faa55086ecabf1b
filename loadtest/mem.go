package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/lesclefsdutresor/clefs/storage"
)

// Mem is a snapshot of the process's memory.
type Mem struct {
	RSS       int64 // resident set size (VmRSS), bytes; 0 if unknown
	PeakRSS   int64 // peak resident set size (VmHWM), bytes; 0 if unknown
	HeapAlloc int64 // live heap after a GC, bytes
	HeapSys   int64 // heap obtained from the OS, bytes
	Sys       int64 // all memory obtained from the OS by the runtime, bytes
}

// ReadMem runs a garbage collection and reads the process's memory figures
// (resident sizes from /proc/self/status on Linux).
func ReadMem() Mem {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := Mem{HeapAlloc: int64(ms.HeapAlloc), HeapSys: int64(ms.HeapSys), Sys: int64(ms.Sys)}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		m.RSS = statusKB(b, "VmRSS:")
		m.PeakRSS = statusKB(b, "VmHWM:")
	}
	return m
}

// statusKB returns the value in bytes of a "Name:   123 kB" line.
func statusKB(status []byte, name string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(name)) {
			continue
		}
		f := bytes.Fields(line[len(name):])
		if len(f) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0
		}
		return n * 1024
	}
	return 0
}

// String formats the snapshot in MiB.
func (m Mem) String() string {
	return fmt.Sprintf("RSS %.1f MiB (peak %.1f MiB), Go heap live %.1f MiB, heap from OS %.1f MiB, runtime total %.1f MiB",
		mib(m.RSS), mib(m.PeakRSS), mib(m.HeapAlloc), mib(m.HeapSys), mib(m.Sys))
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// PopulateUserID returns the id of the k-th populated player of a run.
func PopulateUserID(base uint64, k int) uint64 { return base + 1<<19 + 1<<18 + uint64(k) }

// Populate creates n players directly through the store, spread over the
// run's guilds, from w goroutines at once.
func Populate(ctx context.Context, s storage.Store, base uint64, guilds, n, w int) error {
	if w < 1 {
		w = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= n || ctx.Err() != nil {
					return
				}
				id := storage.PlayerID{Guild: GuildID(base, k%guilds), User: PopulateUserID(base, k)}
				if _, err := s.Player(ctx, id); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("loadtest: populate player %v: %w", id, err) })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// WriteHeapProfile writes a heap profile (after a GC) to the file path.
func WriteHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("loadtest: heap profile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("loadtest: heap profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("loadtest: heap profile: %w", err)
	}
	return nil
}
