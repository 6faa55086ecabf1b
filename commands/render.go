package commands

import (
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
)

// defaultEmoji is the Unicode emoji of each symbol (index game.Symbol). There
// is no tobacco-pipe emoji in Unicode; the flute is the closest shape.
var defaultEmoji = [game.NumSymbols]string{"💎", "🪈", "💣", "🗡️", "🕯️", "🛢️", "🗝️"}

// Embed colours by state.
const (
	colourOpen  = 0x5865F2 // hidden cells left
	colourWin   = 0xF1C40F
	colourLoss  = 0x99AAB5
	colourChest = 0xE67E22
	colourInfo  = 0x2B8A3E
)

// Padlocks and markers of the card.
const (
	padOpen   = "🔓"
	padClosed = "🔒"
	arrowMark = "▶️"
	shownMark = "▫️"
	winMark   = "⭐"
)

// The buttons' emoji, shared by every card (never modified).
var (
	arrowEmoji = &discordgo.ComponentEmoji{Name: arrowMark}
	autoEmoji  = &discordgo.ComponentEmoji{Name: "⚡"}
	againEmoji = &discordgo.ComponentEmoji{Name: "🔁"}
	chestEmoji = &discordgo.ComponentEmoji{Name: "🗝️"}
)

var lotEmoji = [game.NumLots]string{"💰", "🪙", "🥈", "🥉"}

// ticketView is what the card of a ticket shows, derived from the stored
// player and ticket so that the card is the same after a restart.
type ticketView struct {
	user    uint64
	p       storage.Player
	t       storage.Ticket
	resumed bool // /play found this ticket open and charged nothing
}

// done reports whether every row is shown.
func (v *ticketView) done() bool { return !v.t.Open() }

// The card tells what its revealed rows show, no more, no less: the prize
// counts in the balance once the winning row is shown, the key in the
// padlocks once the row holding it is shown. Before that the card does not
// give the result away; after, it agrees with the credits paid.

// rowShown reports whether row r of the ticket is revealed.
func (v *ticketView) rowShown(r int) bool { return r >= 0 && r < 3 && v.t.Revealed&(1<<r) != 0 }

// prizeShown reports whether the ticket's prize (if any) is on the card.
func (v *ticketView) prizeShown() bool {
	o := v.t.Outcome
	return v.t.Drawn && o.Tier.Winning() && v.rowShown(int(o.Row))
}

// keyShown reports whether the key this ticket found (if any) is on the card.
func (v *ticketView) keyShown() bool {
	if !v.t.Drawn || !v.t.Outcome.Key {
		return false
	}
	for i, s := range v.t.Outcome.Grid {
		if s == game.Key {
			return v.rowShown(i / 3)
		}
	}
	return v.done()
}

// keysShown is the number of keys the card's padlocks show (3 when this
// ticket's key opened the chest).
func (v *ticketView) keysShown() int {
	t := v.t
	switch {
	case !t.Drawn:
		return v.p.Keys
	case !t.Outcome.Key:
		return t.KeysAfter
	case !v.keyShown(): // the keys held before the draw
		if t.Chest {
			return game.MaxKeys - 1
		}
		return t.KeysAfter - 1
	case t.Chest:
		return game.MaxKeys
	}
	return t.KeysAfter
}

// balanceShown is the balance the card shows: without this ticket's prize
// until its winning row is shown.
func (v *ticketView) balanceShown() int64 {
	if v.t.Drawn && v.t.Outcome.Tier.Winning() && !v.prizeShown() {
		return v.p.Balance - v.t.Outcome.Prize
	}
	return v.p.Balance
}

// padlocks draws the chest's three padlocks for keys held.
func padlocks(keys int) string {
	if keys < 0 {
		keys = 0
	}
	if keys > game.MaxKeys {
		keys = game.MaxKeys
	}
	return strings.Repeat(padOpen, keys) + strings.Repeat(padClosed, game.MaxKeys-keys)
}

// symbol returns the emoji of s.
func (a *App) symbol(s game.Symbol) string {
	if s < game.NumSymbols {
		return a.emoji[s]
	}
	return a.hidden
}

// gridText renders the 3×3 grid, one line per row, each preceded by its
// marker: an arrow while hidden, a star on the winning row.
func (a *App) gridText(b *strings.Builder, t storage.Ticket) {
	for r := 0; r < 3; r++ {
		shown := t.Drawn && t.Revealed&(1<<r) != 0
		switch {
		case !shown:
			b.WriteString(arrowMark)
		case t.Outcome.Tier.Winning() && int(t.Outcome.Row) == r:
			b.WriteString(winMark)
		default:
			b.WriteString(shownMark)
		}
		for c := 0; c < 3; c++ {
			b.WriteByte(' ')
			if shown {
				b.WriteString(a.symbol(t.Outcome.Grid[3*r+c]))
			} else {
				b.WriteString(a.hidden)
			}
		}
		b.WriteByte('\n')
	}
}

// localizeCard localizes once the lines of a finished card that depend on
// the App's emoji: the win per symbol (around the prize) and the key found.
func (a *App) localizeCard(l *lang) error {
	for s := range game.Symbol(game.NumSymbols) {
		var err error
		l.win[s], err = l.affixOf("card_win", nil, map[string]any{
			"Symbol": a.symbol(s), "Name": l.T("sym_"+s.String(), nil),
		}, "Prize")
		if err != nil {
			return err
		}
	}
	l.keyFound = l.T("card_key", map[string]any{"Key": a.emoji[game.Key]})
	return nil
}

// winLine is the line of a winning card: "🎉 Three gems! You win 5.00 credits."
func (a *App) winLine(l *lang, s game.Symbol, prize int64) string {
	if s >= game.NumSymbols {
		return l.T("card_win", map[string]any{
			"Symbol": a.symbol(s), "Name": l.T("sym_"+s.String(), nil), "Prize": l.Credits(prize),
		})
	}
	return string(l.win[s].wrap(make([]byte, 0, 96), l.Credits(prize)))
}

// ticketCard renders a ticket: the grid, the result once all is shown, the
// keys as padlocks, the balance, and the buttons.
func (a *App) ticketCard(l *lang, v *ticketView) *discordgo.InteractionResponseData {
	t := v.t
	var b strings.Builder
	b.Grow(512)
	if v.resumed {
		b.WriteString(l.card.resumed)
		b.WriteString("\n\n")
	}
	a.gridText(&b, t)
	b.WriteByte('\n')
	colour := colourOpen
	if !v.done() {
		b.WriteString(l.card.hint)
	} else {
		o := t.Outcome
		if o.Tier.Winning() {
			colour = colourWin
			b.WriteString(a.winLine(l, o.Tier.Symbol(), o.Prize))
		} else {
			colour = colourLoss
			b.WriteString(l.card.loss)
		}
		if o.Key {
			b.WriteByte('\n')
			b.WriteString(l.keyFound)
		}
		if t.Chest {
			colour = colourChest
			b.WriteByte('\n')
			b.WriteString(l.card.chestWon)
		}
	}
	keys := v.keysShown()
	e := &discordgo.MessageEmbed{
		Title:       l.card.title,
		Description: b.String(),
		Color:       colour,
		Fields: []*discordgo.MessageEmbedField{
			{Name: l.card.fieldChest, Value: l.keysLine(keys), Inline: true},
			{Name: l.card.fieldBalance, Value: l.Credits(v.balanceShown()), Inline: true},
		},
		Footer: &discordgo.MessageEmbedFooter{
			Text: l.footerPrefix + strconv.FormatUint(t.ID, 10) + l.footerSuffix,
		},
	}
	rowIDs, autoCID, againCID := cardIDs(v.user, t.ID)
	rows := []discordgo.MessageComponent{a.arrowRow(l, v, &rowIDs, autoCID)}
	if v.done() {
		if v.p.ChestPending {
			rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				a.chestButton(l, v.user, v.p.ChestSeq+1),
			}})
		} else {
			rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				againButtonID(l, againCID),
			}})
		}
	}
	return &discordgo.InteractionResponseData{
		Embeds:          []*discordgo.MessageEmbed{e},
		Components:      rows,
		AllowedMentions: noMentions,
	}
}

// arrowRow is the row of the three arrows and Auto; shown rows' arrows, and
// Auto once all is shown, are disabled.
func (a *App) arrowRow(l *lang, v *ticketView, rowIDs *[3]string, autoCID string) discordgo.ActionsRow {
	t := v.t
	comps := make([]discordgo.MessageComponent, 0, 4)
	for r := 0; r < 3; r++ {
		comps = append(comps, discordgo.Button{
			Label:    l.rowLabels[r],
			Emoji:    arrowEmoji,
			Style:    discordgo.PrimaryButton,
			CustomID: rowIDs[r],
			Disabled: t.Drawn && t.Revealed&(1<<r) != 0,
		})
	}
	comps = append(comps, discordgo.Button{
		Label:    l.card.auto,
		Emoji:    autoEmoji,
		Style:    discordgo.SecondaryButton,
		CustomID: autoCID,
		Disabled: v.done(),
	})
	return discordgo.ActionsRow{Components: comps}
}

func againButton(l *lang, user, ticket uint64) discordgo.Button {
	return againButtonID(l, againID(user, ticket))
}

// againButtonID is againButton with its custom ID already made.
func againButtonID(l *lang, id string) discordgo.Button {
	return discordgo.Button{
		Label:    l.againLabel,
		Emoji:    againEmoji,
		Style:    discordgo.SuccessButton,
		CustomID: id,
	}
}

func (a *App) chestButton(l *lang, user uint64, seq int64) discordgo.Button {
	return discordgo.Button{
		Label:    l.card.chest,
		Emoji:    chestEmoji,
		Style:    discordgo.SuccessButton,
		CustomID: chestID(user, seq),
	}
}

// chestCard renders the treasure chest: closed with its button when c is
// nil, else opened with the lot found and "Play again".
func (a *App) chestCard(l *lang, user uint64, p storage.Player, c *game.Chest) *discordgo.InteractionResponseData {
	e := &discordgo.MessageEmbed{
		Title: l.card.chestTitle,
		Color: colourChest,
		Fields: []*discordgo.MessageEmbedField{
			{Name: l.card.fieldBalance, Value: l.Credits(p.Balance), Inline: true},
		},
	}
	var row discordgo.ActionsRow
	if c == nil {
		e.Description = padlocks(game.MaxKeys) + "\n" + l.card.chestClosed
		row.Components = []discordgo.MessageComponent{a.chestButton(l, user, p.ChestSeq+1)}
	} else {
		e.Color = colourWin
		e.Description = chestLine(l, *c)
		var last uint64
		if p.Ticket != nil {
			last = p.Ticket.ID
		}
		row.Components = []discordgo.MessageComponent{againButton(l, user, last)}
	}
	return &discordgo.InteractionResponseData{
		Embeds:          []*discordgo.MessageEmbed{e},
		Components:      []discordgo.MessageComponent{row},
		AllowedMentions: noMentions,
	}
}

// chestLine is the line of an opened chest: "🪙 You find **one gold coin**: **5.00 credits**!"
func chestLine(l *lang, c game.Chest) string {
	if c.Lot >= game.NumLots { // not a lot of the regulation's: a store would have refused it
		return "🪙 " + l.T("chest_opened", map[string]any{
			"Lot": l.T("lot_"+c.Lot.String(), nil), "Prize": l.Credits(c.Prize),
		})
	}
	return string(l.chestOpened[c.Lot].wrap(make([]byte, 0, 96), l.Credits(c.Prize)))
}

// mention is a user mention; with AllowedMentions empty it pings no one.
func mention(user uint64) string {
	return "<@" + strconv.FormatUint(user, 10) + ">"
}

// timestamp is a Discord timestamp that each client shows in its own time
// zone and language; style "R" is relative ("in 3 hours"), "f" a full date.
func timestamp(unix int64, style string) string {
	return "<t:" + strconv.FormatInt(unix, 10) + ":" + style + ">"
}

// infoEmbed is a plain embed reply.
func infoEmbed(title, desc string, colour int, fields ...*discordgo.MessageEmbedField) *discordgo.MessageEmbed {
	return &discordgo.MessageEmbed{Title: title, Description: desc, Color: colour, Fields: fields}
}
