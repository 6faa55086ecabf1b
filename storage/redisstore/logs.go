package redisstore

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// RouteLogs sends go-redis's own log lines (connection pool warnings such as
// "failed to dial") to log as warnings, with component=go-redis, instead of
// unstructured lines on stderr. go-redis (v9) keeps one logger for the
// whole process (redis.SetLogger; a client takes none of its own), so this
// changes every client of the process: call it once, from the composition
// root (cli.Main does), before opening a store — not from an init(), which
// would change it for every importer, tests included.
func RouteLogs(log *slog.Logger) { redis.SetLogger(printfLogger{log}) }

// printfLogger adapts a slog.Logger to go-redis's Printf-style logger.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
