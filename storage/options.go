package storage

import (
	"fmt"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Drawer draws the random part of a step. Implementations must be safe for
// concurrent use. A store calls Play only when a ticket needs its draw and
// Chest only when a chest is opened; when either returns an error the step
// fails and changes nothing.
type Drawer interface {
	// Play draws one play of the main game for a player holding keysHeld keys (0..2).
	Play(keysHeld int) (game.Outcome, error)
	// Chest draws the treasure chest.
	Chest() (game.Chest, error)
}

// GameDrawer returns the Drawer that uses the game's own draws with src
// (nil means game.NewSecureSource()).
func GameDrawer(src game.Source) Drawer {
	if src == nil {
		src = game.NewSecureSource()
	}
	return gameDrawer{src: src}
}

type gameDrawer struct{ src game.Source }

func (d gameDrawer) Play(keysHeld int) (game.Outcome, error) {
	o, err := game.Play(d.src, keysHeld)
	if err != nil {
		return game.Outcome{}, fmt.Errorf("draw play: %w", err)
	}
	return o, nil
}

func (d gameDrawer) Chest() (game.Chest, error) { return game.OpenChest(d.src), nil }

// WithDefaults returns o with every nil field replaced by its default:
// Now by time.Now and Drawer by GameDrawer(o.Source).
func (o Options) WithDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Drawer == nil {
		o.Drawer = GameDrawer(o.Source)
	}
	return o
}

// Timestamp returns t as stores keep it: UTC, whole milliseconds. Stores
// round every time they record so that an export round-trips exactly.
func Timestamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}
