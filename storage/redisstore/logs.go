package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RouteLogs sends go-redis's own log lines to log as warnings, with
// component=go-redis, from the composition root (cli.Main) before opening a
// store. go-redis keeps one logger for the whole process, set without a
// lock: it is set once, and a later call only swaps the slog.Logger it
// writes to, so that two Mains in one process (tests) do not race.
func RouteLogs(log *slog.Logger) {
	routedTo.Store(log)
	routeOnce.Do(func() { redis.SetLogger(printfLogger{}) })
}

var (
	routedTo  atomic.Pointer[slog.Logger]
	routeOnce sync.Once
)

// printfLogger adapts go-redis's Printf-style logger to the routed slog.Logger.
type printfLogger struct{}

func (printfLogger) Printf(ctx context.Context, format string, v ...any) {
	routedTo.Load().WarnContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
