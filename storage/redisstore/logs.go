package redisstore

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// RouteLogs sends go-redis's own log lines to log as warnings, with
// component=go-redis. go-redis keeps one logger for the whole process, so
// call it once, from the composition root (cli.Main), before opening a
// store.
func RouteLogs(log *slog.Logger) { redis.SetLogger(printfLogger{log}) }

// printfLogger adapts a slog.Logger to go-redis's Printf-style logger.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
