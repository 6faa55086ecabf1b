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

// appendGrid appends the 3×3 grid, one line per row, each preceded by its
// marker: an arrow while hidden, a star on the winning row.
func (a *App) appendGrid(b []byte, t storage.Ticket) []byte {
	for r := 0; r < 3; r++ {
		shown := t.Drawn && t.Revealed&(1<<r) != 0
		switch {
		case !shown:
			b = append(b, arrowMark...)
		case t.Outcome.Tier.Winning() && int(t.Outcome.Row) == r:
			b = append(b, winMark...)
		default:
			b = append(b, shownMark...)
		}
		for c := 0; c < 3; c++ {
			b = append(b, ' ')
			if shown {
				b = append(b, a.symbol(t.Outcome.Grid[3*r+c])...)
			} else {
				b = append(b, a.hidden...)
			}
		}
		b = append(b, '\n')
	}
	return b
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

// appendWinLine appends the line of a winning card to b: "🎉 Three gems!
// You win 5.00 credits."
func (a *App) appendWinLine(b []byte, l *lang, s game.Symbol, prize int64) []byte {
	if s >= game.NumSymbols {
		return append(b, l.T("card_win", map[string]any{
			"Symbol": a.symbol(s), "Name": l.T("sym_"+s.String(), nil), "Prize": l.Credits(prize),
		})...)
	}
	b = append(b, l.win[s].prefix...)
	b = l.appendCredits(b, prize)
	return append(b, l.win[s].suffix...)
}

// ticketParts is what a ticket card is made of, but its text, allocated at
// once: the card's response data points into it, its components are
// pointers to its rows and buttons (encoded as the values would be).
type ticketParts struct {
	data    discordgo.InteractionResponseData
	embed   discordgo.MessageEmbed
	embeds  [1]*discordgo.MessageEmbed
	fields  [2]discordgo.MessageEmbedField
	fieldPs [2]*discordgo.MessageEmbedField
	footer  discordgo.MessageEmbedFooter
	buttons [5]discordgo.Button // the three arrows, Auto, then Play again or the chest
	arrows  [4]discordgo.MessageComponent
	last    [1]discordgo.MessageComponent
	rows    [2]discordgo.ActionsRow
	rowCs   [2]discordgo.MessageComponent
}

// ticketCard renders a ticket: the grid, the result once all is shown, the
// keys as padlocks, the balance, and the buttons.
func (a *App) ticketCard(l *lang, v *ticketView) *discordgo.InteractionResponseData {
	t := v.t
	// The card's text is one string; the description, the balance and the
	// footer are slices of it.
	var arr [1024]byte
	b := arr[:0]
	if v.resumed {
		b = append(b, l.card.resumed...)
		b = append(b, "\n\n"...)
	}
	b = a.appendGrid(b, t)
	b = append(b, '\n')
	colour := colourOpen
	if !v.done() {
		b = append(b, l.card.hint...)
	} else {
		o := t.Outcome
		if o.Tier.Winning() {
			colour = colourWin
			b = a.appendWinLine(b, l, o.Tier.Symbol(), o.Prize)
		} else {
			colour = colourLoss
			b = append(b, l.card.loss...)
		}
		if o.Key {
			b = append(b, '\n')
			b = append(b, l.keyFound...)
		}
		if t.Chest {
			colour = colourChest
			b = append(b, '\n')
			b = append(b, l.card.chestWon...)
		}
	}
	descEnd := len(b)
	b = l.appendCredits(b, v.balanceShown())
	balanceEnd := len(b)
	b = append(b, l.footerPrefix...)
	b = strconv.AppendUint(b, t.ID, 10)
	b = append(b, l.footerSuffix...)
	text := string(b)

	p := new(ticketParts)
	p.fields = [2]discordgo.MessageEmbedField{
		{Name: l.card.fieldChest, Value: l.keysLine(v.keysShown()), Inline: true},
		{Name: l.card.fieldBalance, Value: text[descEnd:balanceEnd], Inline: true},
	}
	p.fieldPs = [2]*discordgo.MessageEmbedField{&p.fields[0], &p.fields[1]}
	p.footer.Text = text[balanceEnd:]
	p.embed = discordgo.MessageEmbed{
		Title:       l.card.title,
		Description: text[:descEnd],
		Color:       colour,
		Fields:      p.fieldPs[:],
		Footer:      &p.footer,
	}
	p.embeds[0] = &p.embed

	for r := range 3 {
		p.buttons[r] = discordgo.Button{
			Label:    l.rowLabels[r],
			Emoji:    arrowEmoji,
			Style:    discordgo.PrimaryButton,
			CustomID: customID{kind: kindRow, user: v.user, ticket: t.ID, row: r}.format(),
			Disabled: t.Drawn && t.Revealed&(1<<r) != 0,
		}
	}
	p.buttons[3] = discordgo.Button{
		Label:    l.card.auto,
		Emoji:    autoEmoji,
		Style:    discordgo.SecondaryButton,
		CustomID: customID{kind: kindAuto, user: v.user, ticket: t.ID}.format(),
		Disabled: v.done(),
	}
	for k := range p.arrows {
		p.arrows[k] = &p.buttons[k]
	}
	p.rows[0].Components = p.arrows[:]
	p.rowCs[0] = &p.rows[0]
	rows := p.rowCs[:1]
	if v.done() {
		if v.p.ChestPending {
			p.buttons[4] = a.chestButton(l, v.user, v.p.ChestSeq+1)
		} else {
			p.buttons[4] = againButton(l, v.user, t.ID)
		}
		p.last[0] = &p.buttons[4]
		p.rows[1].Components = p.last[:]
		p.rowCs[1] = &p.rows[1]
		rows = p.rowCs[:2]
	}
	p.data = discordgo.InteractionResponseData{
		Embeds:          p.embeds[:],
		Components:      rows,
		AllowedMentions: noMentions,
	}
	return &p.data
}

func againButton(l *lang, user, ticket uint64) discordgo.Button {
	return discordgo.Button{
		Label:    l.againLabel,
		Emoji:    againEmoji,
		Style:    discordgo.SuccessButton,
		CustomID: customID{kind: kindAgain, user: user, ticket: ticket}.format(),
	}
}

func (a *App) chestButton(l *lang, user uint64, seq int64) discordgo.Button {
	return discordgo.Button{
		Label:    l.card.chest,
		Emoji:    chestEmoji,
		Style:    discordgo.SuccessButton,
		CustomID: customID{kind: kindChest, user: user, seq: seq}.format(),
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
