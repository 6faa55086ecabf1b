package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// fairness is the handlers of /fairness (docs/FAIRNESS.md); only a
// game.SeedReveal's seed is ever written out.
type fairness struct {
	*steps
	*renderer
}

func (a *fairness) fairnessCommand() *command {
	value := option(discordgo.ApplicationCommandOptionString, "value", "valeur",
		"Your new client seed: any text, up to 64 bytes", "Votre nouvelle graine client : un texte, jusqu'à 64 octets", true)
	value.MinLength = new(1)
	value.MaxLength = game.MaxClientSeed
	ticket := option(discordgo.ApplicationCommandOptionInteger, "ticket", "ticket",
		"The ticket's number (on its card and in /history)", "Le numéro du ticket (sur sa carte et dans /historique)", true)
	ticket.MinValue = new(1.0)
	return &command{
		def: slash("fairness", "equite",
			"Provably fair: check that your tickets were not chosen for you",
			"Équité prouvable : vérifiez que vos tickets n'ont pas été choisis pour vous",
			subcommand("show", "afficher", "Your seeds: the commitment of the secret one, and yours",
				"Vos graines : l'engagement de la graine secrète, et la vôtre"),
			subcommand("seed", "graine", "Choose your client seed (this also reveals the server seed)",
				"Choisir votre graine client (révèle aussi la graine du serveur)", value),
			subcommand("rotate", "reveler", "Reveal the server seed and commit a new one",
				"Révéler la graine du serveur et en engager une nouvelle"),
			subcommand("verify", "verifier", "Recompute a ticket drawn under a revealed seed",
				"Recalculer un ticket tiré avec une graine révélée", ticket),
			subcommand("export", "exporter", "Download your history and revealed seeds to check every ticket yourself",
				"Télécharger votre historique et vos graines révélées pour vérifier vous-même chaque ticket"),
		),
		h: a.handleFairness,
	}
}

func (a *fairness) handleFairness(ctx context.Context, rq *request) (reply, error) {
	sub, o, err := rq.subcommand()
	if err != nil {
		return reply{}, err
	}
	switch sub {
	case "show":
		return a.fairnessShow(ctx, rq)
	case "seed":
		s, ok := o.str("value")
		if !ok {
			return reply{}, userErr("err_bad_option", nil)
		}
		if err := game.ValidateClientSeed(s); err != nil {
			return reply{}, userErr("err_client_seed", map[string]any{"Max": game.MaxClientSeed})
		}
		return a.fairnessRotate(ctx, rq, &s)
	case "rotate":
		return a.fairnessRotate(ctx, rq, nil)
	case "verify":
		n, _, ok := lookup[int64](o, "ticket", discordgo.ApplicationCommandOptionInteger)
		if !ok || n < 1 {
			return reply{}, userErr("err_bad_option", nil)
		}
		return a.fairnessVerify(ctx, rq, uint64(n))
	case "export":
		return a.fairnessExport(ctx, rq)
	}
	return reply{}, userErr("err_unknown_command", nil)
}

// code writes s as inline code: a client seed may hold a backtick, shown
// then in a double-backtick span.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

func clientSeed(l *lang, s string) string {
	if s == "" {
		return l.T("fair_client_empty", nil)
	}
	return code(s)
}

func (a *fairness) reveals(ctx context.Context, rq *request) (game.Reveals, error) {
	rs, err := a.store.Reveals(ctx, rq.player())
	if err != nil {
		return rs, internal("reveals", err)
	}
	return rs, nil
}

// fairnessShow shows the current seeds and the last one revealed.
func (a *fairness) fairnessShow(ctx context.Context, rq *request) (reply, error) {
	p, ok, err := a.load(ctx, rq.player())
	if err != nil {
		return reply{}, err
	}
	l := rq.l
	if !ok {
		return ephemeralEmbed(infoEmbed(l.T("fair_title", nil), l.T("fair_no_seeds", nil), colourInfo)), nil
	}
	fields := a.currentSeedFields(l, p)
	rs, err := a.reveals(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	if r, ok := rs.Last(); ok {
		fields = append(fields, revealField(l, "fair_last_revealed", r))
	}
	e := infoEmbed(l.T("fair_title", nil), l.T("fair_intro", nil), colourInfo, fields...)
	e.Footer = &discordgo.MessageEmbedFooter{Text: l.T("fair_footer", nil)}
	return ephemeralEmbed(e), nil
}

// currentSeedFields shows the commitments of the current and next seeds.
func (a *fairness) currentSeedFields(l *lang, p game.Player) []*discordgo.MessageEmbedField {
	fields := []*discordgo.MessageEmbedField{
		{Name: l.T("fair_commitment", map[string]any{"No": p.SeedNo}), Value: code(p.Commitment().String())},
		{Name: l.T("fair_client", nil), Value: clientSeed(l, p.ClientSeed), Inline: true},
		{Name: l.T("fair_tickets", nil), Value: l.P("fair_count", int64(min(p.SeedTickets(), 1<<62)), map[string]any{"Count": p.SeedTickets()}), Inline: true},
	}
	// Shown before a client seed can be chosen for it: the server seed
	// cannot be picked knowing it.
	if p.NextSeed != (game.Seed{}) {
		fields = append(fields, &discordgo.MessageEmbedField{
			Name:  l.T("fair_next_commitment", map[string]any{"No": p.SeedNo + 1}),
			Value: code(p.NextSeed.Commitment().String()) + "\n" + l.T("fair_next_note", nil),
		})
	}
	return fields
}

// revealField shows a revealed seed, its commitment and what it drew.
func revealField(l *lang, title string, r game.SeedReveal) *discordgo.MessageEmbedField {
	drew := l.T("fair_drew_none", nil)
	switch {
	case r.LastTicket == r.FirstTicket:
		drew = l.T("fair_drew_one", map[string]any{"First": r.FirstTicket})
	case r.LastTicket > r.FirstTicket:
		drew = l.T("fair_drew", map[string]any{"First": r.FirstTicket, "Last": r.LastTicket})
	}
	return &discordgo.MessageEmbedField{
		Name: l.T(title, map[string]any{"No": r.No}),
		Value: l.T("fair_reveal", map[string]any{
			"Seed": code(r.Seed.Hex()), "Commitment": code(r.Commitment().String()), "Client": clientSeed(l, r.ClientSeed), "Drew": drew,
		}),
	}
}

// fairnessRotate reveals the server seed and commits a new one, setting
// client if not nil; it creates the player.
func (a *fairness) fairnessRotate(ctx context.Context, rq *request, client *string) (reply, error) {
	set, err := a.settings(ctx, rq.guild)
	if err != nil {
		return reply{}, err
	}
	next, err := game.NewSeed(a.seeds)
	if err != nil {
		return reply{}, internal("new_seed", err)
	}
	ap, err := a.run(ctx, storage.Step{
		ID: rq.player(), Op: rq.i.ID, Create: true, Start: set.StartingBalance,
		Move: game.Rotate{Fresh: next, Client: client},
	})
	if err := stepErr("rotate", err,
		on{game.ErrTicketOpen, userErr("err_rotate_open", nil)},
		on{game.ErrClientSeed, userErr("err_client_seed", map[string]any{"Max": game.MaxClientSeed})}); err != nil {
		return reply{}, err
	}
	l := rq.l
	p := ap.Player
	rs, err := a.reveals(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	r, ok := rs.Seed(ap.Result.Seed)
	if !ok { // a repeated interaction whose reveal has since been dropped
		return reply{}, userErr("err_seed_forgotten", nil)
	}
	fields := []*discordgo.MessageEmbedField{revealField(l, "fair_revealed", r)}
	if p.SeedNo <= r.No+1 { // else a repeated interaction: the player has rotated since
		fields = append(fields, a.currentSeedFields(l, p)...)
	}
	title := l.T("fair_rotated_title", nil)
	if client != nil {
		title = l.T("fair_seed_title", nil)
	}
	e := infoEmbed(title, l.T("fair_rotated", nil), colourInfo, fields...)
	e.Footer = &discordgo.MessageEmbedFooter{Text: l.T("fair_footer", nil)}
	return ephemeralEmbed(e), nil
}

// fairnessVerify recomputes ticket n from its revealed seed and history
// line, and the chest it opened, if any.
func (a *fairness) fairnessVerify(ctx context.Context, rq *request, n uint64) (reply, error) {
	p, ok, hs, err := a.history(ctx, rq.player(), storage.HistoryLimit)
	if err != nil {
		return reply{}, err
	}
	l := rq.l
	data := map[string]any{"Ticket": n}
	if !ok {
		return reply{}, userErr("err_verify_unknown", data)
	}
	rs, err := a.reveals(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	if _, secret, err := p.TicketSeed(rs, n); err != nil || secret {
		switch {
		case secret:
			return reply{}, userErr("err_verify_secret", data)
		case errors.Is(err, game.ErrSeedForgotten):
			return reply{}, userErr("err_verify_forgotten", data)
		}
		return reply{}, userErr("err_verify_unknown", data)
	}
	line, chest := -1, -1
	for i, h := range hs { // newest first: the chest comes before its ticket
		if h.Kind == game.KindPlay && h.TicketID == n {
			line = i
			break
		}
		if h.Kind == game.KindChest {
			chest = i
		}
	}
	if line < 0 {
		return reply{}, userErr("err_verify_forgotten", data)
	}
	v, err := p.Verify(a.drawer, rs, hs[line])
	switch {
	case errors.Is(err, game.ErrNotVerifiable):
		return reply{}, userErr("err_verify_old", data)
	case err != nil:
		return reply{}, internal("verify", err)
	}
	h := hs[line]
	inputs := l.T("fair_inputs", map[string]any{
		"Seed": code(v.Seed.Seed.Hex()), "Commitment": code(v.Seed.Commitment().String()), "Client": code(v.Seed.ClientSeed),
		"Nonce": n, "Keys": v.KeysBefore,
	})
	o := v.Outcome
	recomputed := a.grid(game.Ticket{Drawn: true, Outcome: o, Revealed: game.AllRows}) + "\n" + a.resultText(l, o, o.Key && v.KeysBefore == game.MaxKeys-1)
	fields := []*discordgo.MessageEmbedField{
		{Name: l.T("fair_inputs_title", map[string]any{"No": v.Seed.No}), Value: inputs},
		{Name: l.T("fair_recomputed", nil), Value: recomputed},
	}
	colour, title := colourInfo, l.T("fair_verified_title", data)
	desc := l.T("fair_verified", data)
	if !v.Match {
		colour, title, desc = colourChest, l.T("fair_mismatch_title", data), l.T("fair_mismatch", data)
		shown := game.Outcome{Tier: h.Tier, Key: h.Key, Row: -1, Grid: h.Grid}
		fields = append(fields, &discordgo.MessageEmbedField{
			Name:  l.T("fair_shown", nil),
			Value: a.grid(game.Ticket{Drawn: true, Outcome: shown, Revealed: game.AllRows}),
		})
	}
	// The third key: the chest it opened, verified too when its seed is revealed.
	if o.Key && v.KeysBefore == game.MaxKeys-1 && chest >= 0 && hs[chest].Fair {
		if cv, err := p.Verify(a.drawer, rs, hs[chest]); err == nil {
			mark := "✅"
			if !cv.Match {
				mark, colour = "⚠️", colourChest
			}
			fields = append(fields, &discordgo.MessageEmbedField{
				Name: l.T("fair_chest_title", map[string]any{"Chest": cv.Nonce}),
				Value: mark + " " + l.T("fair_chest", map[string]any{
					"Lot": lotEmoji[cv.Chest.Lot] + " " + l.T("lot_"+cv.Chest.Lot.String(), nil), "Prize": l.Credits(cv.Chest.Prize),
				}),
			})
		}
	}
	if u := a.fairURL; u != "" {
		desc += "\n\n" + l.T("fair_page_link", map[string]any{"URL": u})
	}
	e := infoEmbed(title, desc, colour, fields...)
	e.Footer = &discordgo.MessageEmbedFooter{Text: l.T("fair_verify_footer", nil)}
	return ephemeralEmbed(e), nil
}

// fairnessExport answers with the player's public export
// (schema.PublicExport) as a JSON file.
func (a *fairness) fairnessExport(ctx context.Context, rq *request) (reply, error) {
	p, ok, hist, err := a.history(ctx, rq.player(), storage.HistoryLimit)
	if err != nil {
		return reply{}, err
	}
	if !ok {
		return reply{}, userErr("err_export_none", nil)
	}
	hist = p.SeenHistory(hist) // a ticket being revealed is exported once finished
	slices.Reverse(hist)       // oldest first
	rs, err := a.reveals(ctx, rq)
	if err != nil {
		return reply{}, err
	}
	b, err := json.Marshal(schema.NewPublicExport(rq.guild, rq.user, hist, rs))
	if err != nil {
		return reply{}, internal("export", err)
	}
	b = append(b, '\n')
	name := "clefs-equite-" + strconv.FormatUint(rq.user, 10) + ".json"
	data := map[string]any{"File": name, "URL": a.fairURL}
	text := rq.l.T("fair_export", data)
	if data["URL"] == "" {
		text = rq.l.T("fair_export_nourl", data)
	}
	return reply{data: &discordgo.InteractionResponseData{
		Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions,
		Files: []*discordgo.File{{Name: name, ContentType: "application/json", Reader: bytes.NewReader(b)}},
	}}, nil
}
