package fakediscord_test

import (
	"context"
	"net/http"
	"net/url"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// pooled is rewrite over a transport that keeps enough idle connections
// for the benchmark's concurrent callbacks (the default keeps 2 per host).
type pooled struct {
	base *url.URL
	t    *http.Transport
}

func (p pooled) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.URL.Host == "discord.com" {
		r.URL.Scheme, r.URL.Host = p.base.Scheme, p.base.Host
	}
	return p.t.RoundTrip(r)
}

// benchBot connects a discordgo bot that answers /play with a message with
// buttons and a click with an update of it, at once, as the load
// generator's bot does.
func benchBot(b *testing.B) *fakediscord.Server {
	b.Helper()
	srv := startFake(b, fakediscord.Options{Guilds: []string{guild}})
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		b.Fatal(err)
	}
	base, _ := url.Parse(srv.URL())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 256
	b.Cleanup(tr.CloseIdleConnections)
	s.Client = &http.Client{Transport: pooled{base, tr}, Timeout: 5 * time.Second}
	s.Identify.Intents = discordgo.IntentsNone
	s.LogLevel = discordgo.LogError
	s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) {
		i := ic.Interaction
		resp := &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{
				Content:    "Ticket 42: pick a key",
				Embeds:     []*discordgo.MessageEmbed{{Title: "Le Trésor", Description: "Three keys, one chest.", Color: 0xd4af37}},
				Components: buttons("key:1", "key:2", "key:3", "auto"),
			},
		}
		if i.Type == discordgo.InteractionMessageComponent {
			resp.Type = discordgo.InteractionResponseUpdateMessage
			resp.Data.Content = "You picked " + i.MessageComponentData().CustomID
		}
		if err := s.InteractionRespond(i, resp); err != nil {
			b.Errorf("respond: %v", err)
		}
	})
	if err := s.Open(); err != nil {
		b.Fatalf("Open: %v", err)
	}
	b.Cleanup(func() { s.Close() })
	register(b, &client{s: s}, srv, guild, playCmd)
	return srv
}

// costs reports, besides ns/op (wall time, at the mercy of whatever else the
// machine runs), the process's CPU time per op (the fake's and the bot's,
// both in this process) and the time goroutines spent blocked on mutexes
// per op, most of it on the fake's lock when it is contended. Call it after
// the setup; the func it returns stops the timer and reports.
func costs(b *testing.B) func() {
	sample := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	read := func() (cpu time.Duration, wait float64) {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		metrics.Read(sample)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), sample[0].Value.Float64()
	}
	cpu0, wait0 := read()
	b.ResetTimer()
	return func() {
		b.StopTimer()
		cpu1, wait1 := read()
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
		b.ReportMetric((wait1-wait0)*1e9/float64(b.N), "mutex-wait-ns/op")
	}
}

// BenchmarkSlashWait measures the fake under many concurrent players, each
// running /play and waiting for the answer (the gateway path of the load
// generator): what it costs is the fake's dispatch, the bot's callback and
// Pending.Wait's building of the Response.
func BenchmarkSlashWait(b *testing.B) { benchPlayers(b, false) }

// BenchmarkCycle is one player's cycle of the load generator: /play, wait,
// a click on the answer's button, wait.
func BenchmarkCycle(b *testing.B) { benchPlayers(b, true) }

// benchPlayers runs 32×GOMAXPROCS players, each running /play and waiting
// for the answer and, with click, clicking its button and waiting again,
// and reports the costs.
func benchPlayers(b *testing.B, click bool) {
	srv := benchBot(b)
	ctx := context.Background()
	var users atomic.Int64
	b.SetParallelism(32) // ×GOMAXPROCS players
	report := costs(b)
	b.RunParallel(func(pb *testing.PB) {
		user := strconv.FormatInt(1000+users.Add(1), 10)
		for pb.Next() {
			p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "222", User: user, Name: "play"})
			if err != nil {
				b.Error(err)
				return
			}
			r, err := p.Wait(ctx)
			if err != nil || r.Message == nil {
				b.Errorf("Wait: %v (message %v)", err, r.Message)
				return
			}
			if !click {
				continue
			}
			p, err = srv.Click(ctx, fakediscord.Click{Message: r.Message.ID, CustomID: "auto", User: user})
			if err != nil {
				b.Error(err)
				return
			}
			if r, err := p.Wait(ctx); err != nil || r.Message == nil {
				b.Errorf("Wait after click: %v", err)
				return
			}
		}
	})
	report()
	noFailures(b, srv)
}
