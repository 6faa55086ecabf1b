package commands

import (
	"context"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
)

type loggerKey struct{}

// WithLogger returns ctx carrying log, which Handle uses for the
// interaction's lines instead of Config.Logger (a transport's attributes).
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

// interaction reports one handled interaction to the Observer and the debug log.
func (o *observation) interaction(ctx context.Context, log *slog.Logger, rq *request, err error, d time.Duration) {
	outcome := errorOutcome(err)
	if o.obs != nil {
		o.obs.Interaction(rq.kind, outcome, d)
	}
	log.LogAttrs(ctx, slog.LevelDebug, "interaction",
		slog.String("kind", rq.kind),
		slog.String("interaction", rq.i.ID),
		slog.String("guild", rq.i.GuildID),
		slog.String("user", interactionUser(rq.i)),
		slog.String("outcome", outcome),
		slog.Duration("duration", d),
	)
}

func interactionUser(i *discordgo.Interaction) string {
	switch {
	case i.Member != nil && i.Member.User != nil:
		return i.Member.User.ID
	case i.User != nil:
		return i.User.ID
	}
	return ""
}

// logAudit logs a moderator action the store has just recorded.
func logAudit(ctx context.Context, log *slog.Logger, e *game.AuditEntry) {
	attrs := []slog.Attr{
		slog.String("action", e.Action),
		slog.Uint64("guild", e.Guild),
		slog.Uint64("actor", e.Actor),
	}
	if e.Target != 0 {
		attrs = append(attrs, slog.Uint64("target", e.Target))
	}
	switch e.Action {
	case "reset-guild":
		attrs = append(attrs, slog.Int64("players", e.Amount), slog.String("reason", e.Reason))
	case "settings":
		attrs = append(attrs, slog.String("changes", e.Reason))
	default:
		attrs = append(attrs, slog.Int64("amount_cents", e.Amount), slog.String("reason", e.Reason))
	}
	log.LogAttrs(ctx, slog.LevelInfo, "moderator action", attrs...)
}
