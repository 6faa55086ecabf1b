package bot

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// decodeLeniently reads what answering needs (id, token, type, locale)
// from an interaction discordgo could not decode, so that the user gets an
// apology instead of "This interaction failed" after 3 s.
func decodeLeniently(raw []byte) (*discordgo.Interaction, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Token  any             `json:"token"`
		Type   any             `json:"type"`
		Locale any             `json:"locale"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decode interaction envelope: %w", err)
	}
	id := strings.Trim(string(m.ID), `"`)
	token, _ := m.Token.(string)
	if _, err := strconv.ParseUint(id, 10, 64); err != nil || token == "" {
		return nil, errors.New("interaction without a usable id or token")
	}
	i := &discordgo.Interaction{ID: id, Token: token}
	if t, ok := m.Type.(float64); ok {
		i.Type = discordgo.InteractionType(t)
	}
	if l, ok := m.Locale.(string); ok {
		i.Locale = discordgo.Locale(l)
	}
	return i, nil
}

// apology is the private answer to an interaction the bot could not read.
func apology(locale discordgo.Locale) *discordgo.InteractionResponse {
	msg := "⚠️ Sorry, this request could not be read. Nothing was changed; please try again."
	if strings.HasPrefix(string(locale), "fr") {
		msg = "⚠️ Désolé, cette demande n'a pas pu être lue. Rien n'a changé ; réessayez."
	}
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: msg, Flags: discordgo.MessageFlagsEphemeral},
	}
}
