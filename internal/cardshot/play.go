package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/backend"
)

// The card's player: one guild, one user.
const (
	guildID = "1100000000000000000"
	userID  = "1000000000000000001"
)

// recorder is a commands.Responder that keeps the messages the bot sent
// or edited for the last interaction, as Discord would show them.
type recorder struct {
	msgs []*discordgo.InteractionResponseData
}

func (r *recorder) Respond(_ context.Context, _ *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	if resp.Data != nil {
		r.msgs = append(r.msgs, resp.Data)
	}
	return nil
}

func (r *recorder) EditOriginal(_ context.Context, _ *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	d := &discordgo.InteractionResponseData{}
	if e.Embeds != nil {
		d.Embeds = *e.Embeds
	}
	if e.Components != nil {
		d.Components = *e.Components
	}
	r.msgs = append(r.msgs, d)
	return nil
}

func (r *recorder) FollowUp(_ context.Context, _ *discordgo.Interaction, p *discordgo.WebhookParams) error {
	r.msgs = append(r.msgs, &discordgo.InteractionResponseData{Embeds: p.Embeds, Components: p.Components})
	return nil
}

// finishedCard plays tickets with the real handlers, on a temporary
// embedded store in dir, until one is a win found while the player holds a
// key, and returns that card once every row is shown. The draws are the
// bot's verifiable ones from server seeds drawn from seed, so the same
// seed gives the same card.
func finishedCard(ctx context.Context, dir string, seed uint64) (*discordgo.InteractionResponseData, error) {
	st, err := backend.Open(ctx, "", filepath.Join(dir, "card.db"), storage.Options{Defaults: game.Settings{
		StartingBalance: 2000, DailyAmount: 500, DailyCooldown: 20 * time.Hour,
		PublicPlays: true, House: game.DefaultHouse,
	}})
	if err != nil {
		return nil, fmt.Errorf("open a temporary store: %w", err)
	}
	defer st.Close()

	now := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	app := commands.New(commands.Config{
		ApplicationEmojis: true,
		Now:               func() time.Time { now = now.Add(3 * time.Second); return now },
		Seeds:             rand.NewChaCha8(seedBytes(seed)),
		Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, st)
	ids := map[string]string{commands.HiddenEmojiName: emojiID(game.NumSymbols)}
	for s := range game.Symbol(game.NumSymbols) {
		ids[commands.EmojiName(s)] = emojiID(s)
	}
	if err := app.UseApplicationEmojis(ids); err != nil {
		return nil, err
	}

	rec := &recorder{}
	seq := 0
	handle := func(i *discordgo.Interaction) {
		seq++ // every interaction its own ID: the bot answers a repeated one as the first
		i.ID = fmt.Sprint(seq)
		rec.msgs = nil
		app.Handle(ctx, rec, i)
	}
	handle(slash("play"))
	for n := 1; n <= 200; n++ {
		card, auto, err := rec.button("auto")
		if err != nil {
			return nil, fmt.Errorf("ticket %d: %w", n, err)
		}
		handle(click(n, card, auto))
		card, again, err := rec.button("again")
		if err != nil { // a chest is due: open it, then play again from its card
			var chest string
			var cerr error
			if card, chest, cerr = rec.button("chest"); cerr != nil {
				return nil, fmt.Errorf("ticket %d: %w", n, err)
			}
			handle(click(n, card, chest))
			if card, again, err = rec.button("again"); err != nil {
				return nil, fmt.Errorf("chest after ticket %d: %w", n, err)
			}
		} else if isWinWithKey(card) {
			return card, nil
		}
		handle(click(n, card, again))
	}
	return nil, errors.New("no winning ticket with a key held in 200 plays")
}

// isWinWithKey reports whether card is a finished ticket that won more
// than its stake while its chest shows at least one key: a card that shows
// every part of the game.
func isWinWithKey(card *discordgo.InteractionResponseData) bool {
	if card == nil || len(card.Embeds) != 1 || len(card.Embeds[0].Fields) < 2 {
		return false
	}
	e := card.Embeds[0]
	return strings.Contains(e.Description, "You win") && !strings.Contains(e.Description, "You win **0.50 ") &&
		!strings.HasPrefix(e.Fields[0].Value, "🔒🔒🔒")
}

// emojiID is the made-up snowflake of an application emoji: the symbol's
// number plus one (game.NumSymbols for the hidden cell).
func emojiID(s game.Symbol) string { return fmt.Sprint(uint64(s) + 1) }

func seedBytes(seed uint64) (b [32]byte) {
	binary.LittleEndian.PutUint64(b[:], seed)
	return b
}

func member() *discordgo.Member {
	return &discordgo.Member{User: &discordgo.User{ID: userID, Username: "player"}}
}

func slash(name string) *discordgo.Interaction {
	return &discordgo.Interaction{
		Type: discordgo.InteractionApplicationCommand, GuildID: guildID, ChannelID: "1200000000000000000",
		Member: member(), Locale: discordgo.EnglishUS,
		Data: discordgo.ApplicationCommandInteractionData{ID: "1", Name: name},
	}
}

// click is a click on the button customID of card, which the interaction
// carries as its message (the bot checks the button is on it).
func click(n int, card *discordgo.InteractionResponseData, customID string) *discordgo.Interaction {
	return &discordgo.Interaction{
		Type: discordgo.InteractionMessageComponent, GuildID: guildID,
		ChannelID: "1200000000000000000", Member: member(), Locale: discordgo.EnglishUS,
		Message: &discordgo.Message{ID: fmt.Sprint(5000 + n), Embeds: card.Embeds, Components: card.Components},
		Data:    discordgo.MessageComponentInteractionData{CustomID: customID, ComponentType: discordgo.ButtonComponent},
	}
}

// button returns the newest message of the last interaction with an
// enabled button whose custom ID names kind (they read "v1:KIND:…"), and
// that custom ID.
func (r *recorder) button(kind string) (*discordgo.InteractionResponseData, string, error) {
	for i := len(r.msgs) - 1; i >= 0; i-- {
		for _, row := range r.msgs[i].Components {
			rw, ok := row.(discordgo.ActionsRow)
			if !ok {
				continue
			}
			for _, c := range rw.Components {
				if b, ok := c.(discordgo.Button); ok && strings.HasPrefix(b.CustomID, "v1:"+kind+":") && !b.Disabled {
					return r.msgs[i], b.CustomID, nil
				}
			}
		}
	}
	return nil, "", fmt.Errorf("no %q button on the cards", kind)
}
