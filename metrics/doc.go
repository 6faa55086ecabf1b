// Package metrics exposes what the bot does to Prometheus, and its health to
// an orchestrator, on an optional HTTP listener (METRICS_ADDR).
//
// *Metrics has the methods of commands.Observer, without importing commands
// (the bot's wiring, which imports both, asserts it): the handlers report each
// interaction, ticket, play, chest, store error and damaged record, and
// Metrics counts them under names prefixed with "clefs_":
//
//	clefs_interactions_total{command,outcome}            interactions handled
//	clefs_interaction_duration_seconds{command}          handler latency (histogram)
//	clefs_tickets_bought_total                           tickets bought
//	clefs_plays_total                                    plays drawn
//	clefs_wins_total{tier}                               winning plays by tier
//	clefs_keys_collected_total                           keys collected
//	clefs_chests_total{lot}                              chests opened by lot
//	clefs_credits_staked_cents_total                     credits staked, in cents
//	clefs_credits_paid_cents_total{game}                 prizes paid, in cents (main, chest)
//	clefs_store_errors_total{op}                         internal store errors by operation
//	clefs_damaged_records_total                          player records met that do not decode
//
// The transports report how interactions reach the bot, and the wiring which
// build runs:
//
//	clefs_gateway_shard_up{shard}                        1 while the shard is connected, else 0 (ShardUp)
//	clefs_interactions_received_total{transport,shard}   interactions received (Received)
//	clefs_http_requests_rejected_total{reason}           requests the HTTP endpoint refused (Rejected)
//	clefs_build_info{version,revision,go_version}        always 1, naming the build (BuildInfo)
//
// The bot's REST transport (bot.Transport) reports its calls to Discord:
//
//	clefs_discord_requests_total{route,status}           each attempt, by route template and status ("error": no response)
//	clefs_discord_rate_limited_total{scope}              429s by scope: user, global, shared, unknown
//	clefs_discord_retries_total{reason}                  retries: rate_limit, server_error, timeout, connection
//	clefs_discord_give_ups_total{route}                  calls given up (attempts, deadline, or not safe to resend)
//
// transport is "gateway" or "http"; shard is the gateway shard's number, and
// "" (no label, to Prometheus) for an interaction received over HTTP; reason
// is one of signature, method, content_type, too_large, malformed, stale.
//
// Label values come from fixed sets only, never from user input: a value
// that does not look like a command, operation or reason name (a snowflake,
// upper case, too long) and any value past the 64th distinct one are counted
// as "other"; so are a transport other than "gateway" or "http" and a shard
// number outside [0, 1024).
//
// Serve runs the HTTP listener with /metrics, /healthz and /version (the
// build, as JSON); Probe asks a
// running listener for its health (the container's HEALTHCHECK). Health
// combines named checks, one per gateway shard and one for the store, and
// runs them at once; /healthz gives them 1.5 s and answers within 2 s even
// if one hangs, with 503 naming the checks that failed or did not answer.
//
// Usage, in the bot's wiring:
//
//	reg := metrics.NewRegistry()
//	m := metrics.New(reg)
//	metrics.BuildInfo(reg, version, revision)
//	var _ commands.Observer = m // here, where both packages are imported
//	app := commands.New(commands.Config{Observer: m, Logger: log}, store)
//	checks := []metrics.Check{{Name: "store", Run: store.Ping}}
//	for _, s := range shards {
//		checks = append(checks, metrics.Check{Name: fmt.Sprintf("shard %d", s.ID), Run: s.Health})
//	}
//	health := metrics.Health(checks...)
//	go func() {
//		if err := metrics.Serve(ctx, cfg.MetricsAddr, reg, health, build, log); err != nil {
//			log.Error("metrics listener", "err", err)
//		}
//	}()
package metrics
