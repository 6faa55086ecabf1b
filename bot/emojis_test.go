package bot_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
	"github.com/lesclefsdutresor/clefs/commands"
)

// emojiStub is a stub that brings two emojis and records the IDs it gets.
type emojiStub struct {
	stub
	imgs []commands.EmojiImage
	mu   sync.Mutex
	ids  []map[string]string // one per UseApplicationEmojis
}

func (e *emojiStub) ApplicationEmojis() ([]commands.EmojiImage, error) { return e.imgs, nil }

func (e *emojiStub) UseApplicationEmojis(ids map[string]string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ids = append(e.ids, ids)
	return nil
}

func (e *emojiStub) got() []map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]map[string]string(nil), e.ids...)
}

func newEmojiStub(tb testing.TB) *emojiStub {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		tb.Fatal(err)
	}
	return &emojiStub{
		stub: stub{handle: func(ctx context.Context, r commands.Responder, i *discordgo.Interaction) { _ = say(ctx, r, i, "ok") }},
		imgs: []commands.EmojiImage{{Name: "t_one", PNG: b.Bytes()}, {Name: "t_two", PNG: b.Bytes()}},
	}
}

// warnings is a logger that keeps its warnings' messages and causes.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) logger() *slog.Logger { return slog.New(w) }

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := r.Message
	r.Attrs(func(a slog.Attr) bool { s += " " + a.String(); return true })
	w.msgs = append(w.msgs, s)
	return nil
}
func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

func TestSyncEmojisIsIdempotent(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	s := session(t, srv.URL())
	imgs := newEmojiStub(t).imgs
	// One of the two exists already: it is reused, not duplicated.
	pre, err := s.ApplicationEmojiCreate(srv.AppID(), &discordgo.EmojiParams{Name: "t_two", Image: "data:image/png;base64," + b64(imgs[1].PNG)})
	if err != nil {
		t.Fatal(err)
	}
	ids, created, err := bot.SyncEmojis(waitCtx(t), s, srv.AppID(), imgs)
	if err != nil || created != 1 || len(ids) != 2 || ids["t_two"] != pre.ID || ids["t_one"] == "" {
		t.Fatalf("first sync = %v, %d, %v", ids, created, err)
	}
	again, created, err := bot.SyncEmojis(waitCtx(t), s, srv.AppID(), imgs)
	if err != nil || created != 0 || again["t_one"] != ids["t_one"] || again["t_two"] != ids["t_two"] {
		t.Errorf("second sync = %v, %d, %v; want the same IDs, none created", again, created, err)
	}
	if n := len(srv.Emojis()); n != 2 {
		t.Errorf("the fake holds %d emojis, want 2", n)
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("failures: %v", f)
	}
}

func TestSyncEmojisRefused(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.SetRefuseEmojis(true)
	s := session(t, srv.URL())
	_, _, err := bot.SyncEmojis(waitCtx(t), s, srv.AppID(), newEmojiStub(t).imgs)
	if err == nil || !strings.Contains(err.Error(), "t_one") || !strings.Contains(err.Error(), "Missing Permissions") {
		t.Errorf("err = %v, want the refusal of t_one", err)
	}
	if _, _, err := bot.SyncEmojis(waitCtx(t), s, "999", newEmojiStub(t).imgs); err == nil {
		t.Error("sync for a wrong application: no error")
	}
}

func TestGatewayInstallsEmojis(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	h := newEmojiStub(t)
	_, stop := run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild}})
	got := h.got()
	if len(got) != 1 || len(got[0]) != 2 {
		t.Fatalf("the handler got %v, want the two emojis' IDs once", got)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// A restart reuses them.
	h2 := newEmojiStub(t)
	run(t, srv, h2, bot.GatewayOptions{Options: bot.Options{GuildID: guild}})
	if g := h2.got(); len(g) != 1 || g[0]["t_one"] != got[0]["t_one"] || srv.EmojiCreates() != 2 {
		t.Errorf("after a restart: %v, %d creations; want the same IDs, 2 creations in all", g, srv.EmojiCreates())
	}
}

func TestGatewayServesWhenEmojisAreRefused(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.SetRefuseEmojis(true)
	h := newEmojiStub(t)
	w := &warnings{}
	_, stop := run(t, srv, h, bot.GatewayOptions{Options: bot.Options{GuildID: guild, Logger: w.logger()}})
	if err := stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
	if got := h.got(); len(got) != 0 {
		t.Errorf("the handler got IDs %v", got)
	}
	var emojiWarnings []string
	for _, m := range w.all() {
		if strings.Contains(m, "emoji") {
			emojiWarnings = append(emojiWarnings, m)
		}
	}
	if len(emojiWarnings) != 1 || !strings.Contains(emojiWarnings[0], "Missing Permissions") {
		t.Errorf("warnings %q, want one naming the cause", emojiWarnings)
	}
	if cmds := srv.Commands(guild); len(cmds) != 1 {
		t.Errorf("commands registered: %v", cmds)
	}
}

func TestEndpointInstallsEmojis(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	h := newEmojiStub(t)
	e := newEndpoint(t, h, bot.EndpointOptions{Options: bot.Options{GuildID: guild, APIBase: srv.URL()}, Addr: "127.0.0.1:0"})
	if err := e.Register(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	if got := h.got(); len(got) != 1 || len(got[0]) != 2 || len(srv.Emojis()) != 2 {
		t.Errorf("the handler got %v; the fake holds %v", got, srv.Emojis())
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
