package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/metrics"
)

func ExampleNew() {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)

	// What the handlers report for one ticket: bought, drawn (a candle win), shown.
	m.Purchase(game.Stake)
	m.Play(game.TierCandle, false, game.Stake, 100)
	m.Interaction("play", "ok", 4*time.Millisecond)

	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		switch mf.GetName() {
		case "clefs_plays_total", "clefs_credits_staked_cents_total", "clefs_credits_paid_cents_total":
			for _, s := range mf.GetMetric() {
				labels := ""
				for _, l := range s.GetLabel() {
					labels += fmt.Sprintf("{%s=%q}", l.GetName(), l.GetValue())
				}
				fmt.Printf("%s%s %v\n", mf.GetName(), labels, s.GetCounter().GetValue())
			}
		}
	}
	// Output:
	// clefs_credits_paid_cents_total{game="chest"} 0
	// clefs_credits_paid_cents_total{game="main"} 100
	// clefs_credits_staked_cents_total 50
	// clefs_plays_total 1
}

func ExampleHealth() {
	health := metrics.Health(
		metrics.Check{Name: "shard 0", Run: func(context.Context) error { return nil }},
		metrics.Check{Name: "shard 1", Run: func(context.Context) error { return errors.New("not connected") }},
		metrics.Check{Name: "store", Run: func(context.Context) error { return errors.New("connection refused") }},
	)
	fmt.Println(health(context.Background()))
	// Output:
	// shard 1: not connected
	// store: connection refused
}
