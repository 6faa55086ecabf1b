// Package metrics exposes what the bot does to Prometheus, and its health to
// an orchestrator, on an optional HTTP listener (METRICS_ADDR). The metrics,
// their labels and the answers of /healthz and /version are listed in
// docs/operating.md, "Metrics and health".
//
// *Metrics has the methods of commands.Observer, bot.Observer and
// bot.RESTObserver without importing those packages (the bot's wiring, which
// imports them all, asserts it). Label values come from fixed sets only,
// never from user input: a value that does not look like a command,
// operation or reason name (a snowflake, upper case, too long) and any value
// past the 64th distinct one are counted as "other".
//
// Usage, in the bot's wiring:
//
//	reg := metrics.NewRegistry()
//	m := metrics.New(reg)
//	build := buildinfo.Read()
//	metrics.BuildInfo(reg, build.Version, build.Revision)
//	app := commands.New(commands.Config{Observer: m, Logger: log}, store)
//	health := metrics.Health(
//		metrics.Check{Name: "gateway", Run: gateway.Health},
//		metrics.Check{Name: "store", Run: store.Ping},
//	)
//	go func() {
//		if err := metrics.Serve(ctx, cfg.MetricsAddr, reg, health, build, log); err != nil {
//			log.Error("metrics listener", "err", err)
//		}
//	}()
package metrics
