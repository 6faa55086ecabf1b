// Package commands defines the bot's slash commands and buttons and handles
// their interactions. It is independent of the transport that delivered the
// interaction (gateway or HTTP endpoint): handlers get a parsed
// *discordgo.Interaction and answer through a Responder.
package commands

import (
	"context"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// Responder answers one interaction. The bot implements it over a discordgo
// session; an HTTP interactions endpoint would implement it over the HTTP reply.
type Responder interface {
	// Respond sends the initial response (the callback). It is called at most once.
	Respond(ctx context.Context, i *discordgo.Interaction, r *discordgo.InteractionResponse) error
	// EditOriginal edits the original response (after a deferred response).
	EditOriginal(ctx context.Context, i *discordgo.Interaction, e *discordgo.WebhookEdit) error
	// FollowUp sends a follow-up message.
	FollowUp(ctx context.Context, i *discordgo.Interaction, p *discordgo.WebhookParams) error
}

// Observer receives the events that metrics count. Every method must be cheap
// and safe for concurrent use. A nil Observer in Config means none.
type Observer interface {
	// Interaction is called once per handled interaction. command is the
	// command or button kind ("play", "reveal", "chest", "admin grant"…), outcome is
	// "ok", "user_error" or "internal_error".
	Interaction(command, outcome string, d time.Duration)
	// Play is called when a ticket is drawn.
	Play(tier game.Tier, key bool, stake, prize int64)
	// Chest is called when a chest is opened.
	Chest(lot game.Lot, prize int64)
	// Purchase is called when a ticket is bought (stake debited).
	Purchase(stake int64)
	// StoreError is called when a store call fails with an internal error.
	StoreError(op string)
}

// Config configures the handlers.
type Config struct {
	// Emoji per symbol (index game.Symbol); empty entries take the defaults.
	Emoji [game.NumSymbols]string
	// Hidden is the emoji of a hidden cell; empty takes the default.
	Hidden string
	// Now gives the time; nil means time.Now.
	Now func() time.Time
	// Observer receives metrics events; nil means none.
	Observer Observer
	// Logger logs internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// App holds the handlers. It is safe for concurrent use.
type App struct {
	cfg   Config
	store storage.Store
}

// New returns the handlers over store.
func New(cfg Config, store storage.Store) *App {
	return &App{cfg: cfg, store: store}
}

// Definitions returns the application commands to register by bulk overwrite.
func (a *App) Definitions() []*discordgo.ApplicationCommand {
	return nil // PLACEHOLDER
}

// Handle processes one interaction and answers it through r. It never
// panics, and it answers within Discord's 3-second limit (deferring when a
// step could be slow).
func (a *App) Handle(ctx context.Context, r Responder, i *discordgo.Interaction) {
	// PLACEHOLDER
}
