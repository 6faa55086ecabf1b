package bot

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
)

// EmojiHandler is a Handler that brings its own emojis: the transports
// upload them as the application's at start, then hand their IDs back.
type EmojiHandler interface {
	ApplicationEmojis() ([]commands.EmojiImage, error) // the pictures to upload
	UseApplicationEmojis(ids map[string]string) error  // their IDs by name
}

var _ EmojiHandler = (*commands.App)(nil)

// SyncEmojis makes the application own an emoji of each name of want,
// idempotently: it reuses those of the same name (image not compared) and
// creates the others, and returns the IDs by name and how many it created.
// A creation refused because another process created the name is resolved
// by listing again; on error, those created stay for the next start.
func SyncEmojis(ctx context.Context, s *discordgo.Session, appID string, want []commands.EmojiImage) (ids map[string]string, created int, err error) {
	list := func() (map[string]string, error) {
		got, err := s.ApplicationEmojis(appID, discordgo.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("bot: list the application's emojis: %w", err)
		}
		m := make(map[string]string, len(got))
		for _, e := range got {
			if e != nil && e.Name != "" && e.ID != "" {
				m[e.Name] = e.ID
			}
		}
		return m, nil
	}
	have, err := list()
	if err != nil {
		return nil, 0, err
	}
	ids = make(map[string]string, len(want))
	for _, w := range want {
		if id, ok := have[w.Name]; ok {
			ids[w.Name] = id
			continue
		}
		e, cerr := s.ApplicationEmojiCreate(appID, &discordgo.EmojiParams{
			Name:  w.Name,
			Image: "data:image/png;base64," + base64.StdEncoding.EncodeToString(w.PNG),
		}, discordgo.WithContext(ctx))
		if cerr != nil {
			if again, lerr := list(); lerr == nil && again[w.Name] != "" {
				have = again
				ids[w.Name] = again[w.Name]
				continue
			}
			return nil, created, fmt.Errorf("bot: create application emoji %s (%d bytes): %w", w.Name, len(w.PNG), cerr)
		}
		if e == nil || e.ID == "" {
			return nil, created, fmt.Errorf("bot: create application emoji %s: Discord answered no ID", w.Name)
		}
		created++
		ids[w.Name] = e.ID
	}
	return ids, created, nil
}

// installEmojis uploads h's emojis, if it brings any, and hands their IDs
// to it. A failure is one warning: the cards keep their Unicode emojis.
func installEmojis(ctx context.Context, s *discordgo.Session, appID string, h Handler, log *slog.Logger) {
	eh, ok := h.(EmojiHandler)
	if !ok {
		return
	}
	err := func() error {
		want, err := eh.ApplicationEmojis()
		if err != nil || len(want) == 0 {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // the whole upload
		defer cancel()
		ids, created, err := SyncEmojis(ctx, s, appID, want)
		if err != nil {
			return err
		}
		if err := eh.UseApplicationEmojis(ids); err != nil {
			return err
		}
		log.Info("application emojis ready", "count", len(ids), "created", created)
		return nil
	}()
	if err != nil && !errors.Is(ctx.Err(), context.Canceled) {
		log.Warn("application emojis unavailable; cards show Unicode emojis", "err", err)
	}
}
