package redisstore

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// RouteLogs sends go-redis's own log lines (connection pool warnings such as
// "failed to dial") to log as warnings, instead of unstructured lines on
// stderr. go-redis keeps one logger for the whole process: call it once,
// from main, before opening a store.
func RouteLogs(log *slog.Logger) { redis.SetLogger(printfLogger{log}) }

// printfLogger adapts a slog.Logger to go-redis's Printf-style logger.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
