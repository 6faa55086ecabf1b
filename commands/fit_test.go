package commands

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// TestFitBoundsEveryText: whatever a reply holds, fit brings each text
// within Discord's limits, cut with "…", and all embeds within 6000.
func TestFitBoundsEveryText(t *testing.T) {
	long := strings.Repeat("💎", 7000)
	fields := make([]*discordgo.MessageEmbedField, 30)
	for i := range fields {
		fields[i] = &discordgo.MessageEmbedField{Name: long, Value: long}
	}
	orig := &discordgo.MessageEmbed{Title: long, Description: long, Fields: fields,
		Footer: &discordgo.MessageEmbedFooter{Text: long}, Author: &discordgo.MessageEmbedAuthor{Name: long}}
	d := &discordgo.InteractionResponseData{
		Content: long, Embeds: []*discordgo.MessageEmbed{orig},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: long, CustomID: "x"}}}},
	}
	fit(d)
	n := utf8.RuneCountInString
	e := d.Embeds[0]
	total := n(e.Title) + n(e.Description) + n(e.Footer.Text) + n(e.Author.Name)
	for _, f := range e.Fields {
		total += n(f.Name) + n(f.Value)
		if n(f.Name) > maxFieldName || n(f.Value) > maxFieldValue || f.Value == "" {
			t.Errorf("field of %d, %d characters", n(f.Name), n(f.Value))
		}
	}
	label := d.Components[0].(discordgo.ActionsRow).Components[0].(discordgo.Button).Label
	switch {
	case n(d.Content) != maxContent || !strings.HasSuffix(d.Content, "…"):
		t.Errorf("content of %d characters", n(d.Content))
	case n(e.Title) > maxTitle, n(e.Footer.Text) > maxFooter, n(e.Author.Name) > maxAuthor:
		t.Errorf("title %d, footer %d, author %d characters", n(e.Title), n(e.Footer.Text), n(e.Author.Name))
	case len(e.Fields) != maxFields || total > maxEmbedsTotal:
		t.Errorf("%d fields, %d characters in all", len(e.Fields), total)
	case n(label) != maxLabel:
		t.Errorf("label of %d characters", n(label))
	case n(orig.Title) != 7000 || n(orig.Fields[0].Value) != 7000:
		t.Error("fit changed the embed it was given, which its caller may keep")
	}
}
