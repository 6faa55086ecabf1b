// Package metrics exposes what the bot does to Prometheus, and its health to
// an orchestrator, on an optional HTTP listener (METRICS_ADDR). The metrics,
// their labels and the answers of /healthz and /version are listed in
// docs/operating.md, "Metrics and health".
//
// *Metrics has the methods of commands.Observer, bot.Observer and
// bot.RESTObserver without importing those packages (the bot's wiring, which
// imports them all, asserts it). Label values are bounded, never user input
// (labelSet, wellFormed): anything else is counted as "other".
//
// cli.Serve wires it: NewRegistry, New and BuildInfo at start, the
// transport's and the store's health joined by Health, then Serve.
package metrics
