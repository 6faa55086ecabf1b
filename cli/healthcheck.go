package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/joho/godotenv"

	"github.com/lesclefsdutresor/clefs/metrics"
)

// runHealthcheck asks the running bot's /healthz (on METRICS_ADDR) whether it
// is healthy: exit status 0 if it answered 200, 1 otherwise. It is the
// container's HEALTHCHECK (the final image has no shell nor curl), and works
// as an exec probe anywhere else.
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("healthcheck", stderr, "Usage: clefs healthcheck [-addr host:port] [-timeout 3s]\n\nAsks the running bot's /healthz; exit status 0 when healthy, 1 otherwise.\n")
	addr := fs.String("addr", "", "host:port of the bot's metrics listener (default: METRICS_ADDR from the environment or .env)")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := parseFlags(fs, "healthcheck", args, 0); err != nil {
		return err
	}
	if *addr == "" {
		// Like the bot: the real environment wins, even set empty (then
		// the bot serves nothing, and .env's value is not its), then .env.
		v, set := os.LookupEnv("METRICS_ADDR")
		if !set {
			if env, err := godotenv.Read(); err == nil {
				v = env["METRICS_ADDR"]
			}
		}
		*addr = v
	}
	if *addr == "" {
		return errors.New("healthcheck: METRICS_ADDR is empty, so the bot serves no /healthz: set METRICS_ADDR (host:port), or give -addr")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := metrics.Probe(ctx, *addr); err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	fmt.Fprintln(stdout, "healthy")
	return nil
}
