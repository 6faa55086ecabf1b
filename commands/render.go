package commands

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
)

// defaultEmoji is each symbol's Unicode emoji (no tobacco pipe in Unicode:
// the flute is the closest shape).
var defaultEmoji = [game.NumSymbols]string{"💎", "🪈", "💣", "🗡️", "🕯️", "🛢️", "🗝️"}

const (
	colourOpen  = 0x5865F2 // hidden cells left
	colourWin   = 0xF1C40F
	colourLoss  = 0x99AAB5
	colourChest = 0xE67E22
	colourInfo  = 0x2B8A3E
)

const (
	padOpen   = "🔓"
	padClosed = "🔒"
	arrowMark = "▶️"
	shownMark = "▫️"
	winMark   = "⭐"
)

var lotEmoji = [game.NumLots]string{"💰", "🪙", "🥈", "🥉"}

// ticketView is what a ticket's card shows, from the stored player.
type ticketView struct {
	user    uint64
	p       game.Player
	t       game.Ticket
	resumed bool          // /play found this ticket open and charged nothing
	reality *game.Reality // the reality check due when it was bought: on the card that answers the purchase
}

func (v *ticketView) done() bool { return !v.t.Open() }

// keysShown and balanceShown are what the card's revealed rows tell, no
// more, no less (game.Ticket.PrizeShown and KeyShown, as game.Player.Seen).
func (v *ticketView) keysShown() int {
	t := v.t
	switch {
	case !t.Drawn:
		return v.p.Keys
	case !t.KeyShown(): // the keys held before the draw (game's reading of the ticket)
		return t.KeysBefore()
	case t.Chest:
		return game.MaxKeys
	}
	return t.KeysAfter
}

// balanceShown is the balance without a prize not shown yet.
func (v *ticketView) balanceShown() int64 {
	if v.t.Drawn && v.t.Outcome.Tier.Winning() && !v.t.PrizeShown() {
		return v.p.Balance - v.t.Outcome.Prize
	}
	return v.p.Balance
}

func padlocks(keys int) string {
	return strings.Repeat(padOpen, keys) + strings.Repeat(padClosed, game.MaxKeys-keys)
}

type renderer struct {
	emojis   atomic.Pointer[glyphs] // never nil after newRenderer
	override glyphs                 // the operator's emojis (Config.Emoji, Config.Hidden); "" for none
	activity atomic.Bool            // Config.Activity, until App.ActivityOff: cards get "Scratch by hand"
	fairURL  string                 // the verification page's address; "" without Config.PublicURL
}

func (rd *renderer) symbol(s game.Symbol) string {
	if s < game.NumSymbols {
		return rd.glyphs().sym[s]
	}
	return rd.glyphs().hidden
}

// grid draws the 3×3 grid, each row after its marker (hidden, winning).
func (rd *renderer) grid(t game.Ticket) string {
	g := rd.glyphs() // one set for the whole grid
	var b strings.Builder
	for r := range 3 {
		shown := t.Drawn && t.Revealed&(1<<r) != 0
		switch {
		case !shown:
			b.WriteString(arrowMark)
		case t.Outcome.Tier.Winning() && int(t.Outcome.Row) == r:
			b.WriteString(winMark)
		default:
			b.WriteString(shownMark)
		}
		for c := range 3 {
			b.WriteString(" ")
			if s := t.Outcome.Grid[3*r+c]; shown && s < game.NumSymbols {
				b.WriteString(g.sym[s])
			} else {
				b.WriteString(g.hidden)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (rd *renderer) ticketCard(l *lang, v *ticketView) *discordgo.InteractionResponseData {
	t := v.t
	var desc strings.Builder
	if v.resumed {
		desc.WriteString(l.T("card_resumed", nil) + "\n\n")
	}
	if v.reality != nil {
		desc.WriteString(realityLine(l, v.reality) + "\n\n")
	}
	desc.WriteString(rd.grid(t) + "\n")
	colour := colourOpen
	switch {
	case !v.done() && t.Drawn:
		desc.WriteString(l.T("card_hint_drawn", nil))
	case !v.done():
		desc.WriteString(l.T("card_hint", nil))
	default:
		colour = colourLoss
		switch {
		case t.Chest:
			colour = colourChest
		case t.Outcome.Tier.Winning():
			colour = colourWin
		}
		desc.WriteString(rd.resultText(l, t.Outcome, t.Chest))
	}

	arrows := make([]discordgo.MessageComponent, 0, 4)
	for r := range 3 {
		b := button(l.T("btn_row", map[string]any{"N": r + 1}), arrowMark, discordgo.PrimaryButton, customID{kind: kindRow, user: v.user, ticket: t.ID, row: r})
		b.Disabled = t.Revealed&(1<<r) != 0
		arrows = append(arrows, b)
	}
	auto := button(l.T("btn_auto", nil), "⚡", discordgo.SecondaryButton, customID{kind: kindAuto, user: v.user, ticket: t.ID})
	auto.Disabled = v.done()
	arrows = append(arrows, auto)
	rows := []discordgo.MessageComponent{discordgo.ActionsRow{Components: arrows}}
	var more []discordgo.MessageComponent // a second row: the next step, "Scratch by hand"
	if v.done() {
		if next, line := nextStep(l, v.user, v.p, t.ID); next != nil {
			more = append(more, next)
		} else {
			desc.WriteString("\n" + line)
		}
	}
	if rd.activity.Load() {
		more = append(more, button(l.T("btn_activity", nil), "✋", discordgo.SecondaryButton, customID{kind: kindActivity, user: v.user}))
	}
	if len(more) > 0 {
		rows = append(rows, discordgo.ActionsRow{Components: more})
	}

	return &discordgo.InteractionResponseData{
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("card_title", nil),
			Description: desc.String(),
			Color:       colour,
			Fields: []*discordgo.MessageEmbedField{
				{Name: l.T("field_chest", nil), Value: l.keysLine(v.keysShown()), Inline: true},
				{Name: l.T("field_balance", nil), Value: l.Credits(v.balanceShown()), Inline: true},
			},
			Footer: &discordgo.MessageEmbedFooter{Text: rd.cardFooter(l, v)},
		}},
		Components:      rows,
		AllowedMentions: noMentions,
	}
}

// resultText is a finished ticket's result, on its card and elsewhere.
func (rd *renderer) resultText(l *lang, o game.Outcome, chest bool) string {
	var s string
	if o.Tier.Winning() {
		sym := o.Tier.Symbol()
		s = l.T("card_win", map[string]any{
			"Symbol": rd.symbol(sym), "Name": l.T("sym_"+sym.String(), nil), "Prize": l.Credits(o.Prize),
		})
	} else {
		s = l.T("card_loss", nil)
	}
	if o.Key {
		s += "\n" + l.T("card_key", map[string]any{"Key": rd.glyphs().sym[game.Key]})
	}
	if chest {
		s += "\n" + l.T("card_chest_won", nil)
	}
	return s
}

// cardFooter is a ticket card's footer, with the verification page's
// address once finished (plain text: a footer holds no link).
func (rd *renderer) cardFooter(l *lang, v *ticketView) string {
	t := v.t
	s := l.T("card_footer", map[string]any{"Ticket": t.ID, "Stake": l.Credits(game.Stake), "Commitment": ticketCommitment(v.p, t.ID)})
	if u := rd.fairURL; u != "" && v.done() {
		s += l.T("card_footer_verify", map[string]any{"URL": strings.TrimPrefix(u, "https://")})
	}
	return s
}

// ticketCommitment is the short commitment of the seed that draws or drew
// ticket n; "?" for a seed revealed since, which /fairness verify shows.
func ticketCommitment(p game.Player, n uint64) string {
	r, _, err := p.TicketSeed(nil, n)
	if err != nil {
		return "?"
	}
	return r.Commitment().Short()
}

func button(label, emoji string, style discordgo.ButtonStyle, id customID) discordgo.Button {
	return discordgo.Button{Label: label, Emoji: &discordgo.ComponentEmoji{Name: emoji}, Style: style, CustomID: id.format()}
}

// chestCard renders the chest: closed with its button when c is nil, else
// opened with the lot and the next step.
func (rd *renderer) chestCard(l *lang, user uint64, p game.Player, c *game.Chest) *discordgo.InteractionResponseData {
	e := &discordgo.MessageEmbed{
		Title: l.T("chest_title", nil),
		Color: colourChest,
		Fields: []*discordgo.MessageEmbedField{
			{Name: l.T("field_balance", nil), Value: l.Credits(p.Balance), Inline: true},
		},
	}
	var last uint64
	if p.Ticket != nil {
		last = p.Ticket.ID
	}
	next, line := nextStep(l, user, p, last)
	if c == nil {
		e.Description = padlocks(game.MaxKeys) + "\n" + l.T("chest_closed", nil)
	} else {
		e.Color = colourWin
		e.Description = chestLine(l, *c)
	}
	d := &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{e}, AllowedMentions: noMentions}
	if next == nil {
		e.Description += "\n\n" + line
	} else {
		d.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{next}}}
	}
	return d
}

// nextStep is what a finished card offers: the due chest's button, or
// "Play again" (last is the card's ticket); when the rules leave no number
// for it, the line that says so instead.
func nextStep(l *lang, user uint64, p game.Player, last uint64) (discordgo.MessageComponent, string) {
	if p.ChestDue {
		if seq, ok := p.NextChest(); ok {
			return button(l.T("btn_chest", nil), "🗝️", discordgo.SuccessButton, customID{kind: kindChest, user: user, seq: seq}), ""
		}
		return nil, l.T("no_chest_left", nil)
	}
	if _, ok := p.NextTicket(); ok {
		return button(l.T("btn_again", map[string]any{"Stake": l.Amount(game.Stake)}), "🔁", discordgo.SuccessButton,
			customID{kind: kindAgain, user: user, ticket: last}), ""
	}
	return nil, l.T("no_ticket_left", nil)
}

// chestLine is the line of an opened chest: "🪙 You find **one gold coin**: **5.00 credits**!"
func chestLine(l *lang, c game.Chest) string {
	emoji := "🪙" // not a lot of the regulation's: a store would have refused it
	if c.Lot < game.NumLots {
		emoji = lotEmoji[c.Lot]
	}
	return emoji + " " + l.T("chest_opened", map[string]any{
		"Lot": l.T("lot_"+c.Lot.String(), nil), "Prize": l.Credits(c.Prize),
	})
}

// mention is a user mention (AllowedMentions keep it from pinging).
func mention(user uint64) string {
	return "<@" + strconv.FormatUint(user, 10) + ">"
}

// timestamp is a Discord timestamp, shown in each client's time zone and
// language; style "R" is relative ("in 3 hours"), "f" a full date.
func timestamp(unix int64, style string) string {
	return "<t:" + strconv.FormatInt(unix, 10) + ":" + style + ">"
}

func infoEmbed(title, desc string, colour int, fields ...*discordgo.MessageEmbedField) *discordgo.MessageEmbed {
	return &discordgo.MessageEmbed{Title: title, Description: desc, Color: colour, Fields: fields}
}
