package commands

import (
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Discord's limits on a message, in characters: a message past one is
// refused, and the user sees "the application did not respond".
const (
	maxContent     = 2000
	maxTitle       = 256
	maxDescription = 4096
	maxFieldName   = 256
	maxFieldValue  = 1024
	maxFooter      = 2048
	maxAuthor      = 256
	maxEmbedsTotal = 6000 // titles, descriptions, field names and values, footers and authors of all embeds
	maxFields      = 25
	maxLabel       = 80
)

// clip cuts s to at most n characters, ending with "…" when cut, never
// inside a character; invalid UTF-8 becomes "�", as JSON would send it.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "�")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// fit bounds d, in place, to Discord's limits: every text past its limit
// is cut with "…", fields past 25 are dropped, and past 6000 characters in
// all the embeds are cut from the last one's description back. Every reply
// goes through it.
func fit(d *discordgo.InteractionResponseData) {
	if d == nil {
		return
	}
	d.Content = clip(d.Content, maxContent)
	embeds := make([]*discordgo.MessageEmbed, len(d.Embeds))
	total := 0
	for i, e := range d.Embeds {
		if e == nil {
			continue
		}
		c := *e
		c.Title, c.Description = clip(c.Title, maxTitle), clip(c.Description, maxDescription)
		total += utf8.RuneCountInString(c.Title) + utf8.RuneCountInString(c.Description)
		if c.Footer != nil {
			f := *c.Footer
			f.Text = clip(f.Text, maxFooter)
			c.Footer, total = &f, total+utf8.RuneCountInString(f.Text)
		}
		if c.Author != nil {
			a := *c.Author
			a.Name = clip(a.Name, maxAuthor)
			c.Author, total = &a, total+utf8.RuneCountInString(a.Name)
		}
		fields := make([]*discordgo.MessageEmbedField, 0, min(len(c.Fields), maxFields))
		for _, f := range c.Fields[:min(len(c.Fields), maxFields)] {
			if f == nil {
				continue
			}
			g := *f
			g.Name, g.Value = clip(g.Name, maxFieldName), clip(g.Value, maxFieldValue)
			total += utf8.RuneCountInString(g.Name) + utf8.RuneCountInString(g.Value)
			fields = append(fields, &g)
		}
		c.Fields = fields
		embeds[i] = &c
	}
	// cut shortens *s by what total passes maxEmbedsTotal (nothing when it
	// does not), keeping one character: a field's value may not be empty.
	cut := func(s *string) {
		n := utf8.RuneCountInString(*s)
		if keep := max(n-(total-maxEmbedsTotal), 1); keep < n {
			*s = clip(*s, keep)
			total += utf8.RuneCountInString(*s) - n
		}
	}
	for i := len(embeds) - 1; i >= 0 && total > maxEmbedsTotal; i-- {
		e := embeds[i]
		if e == nil {
			continue
		}
		cut(&e.Description)
		for j := len(e.Fields) - 1; j >= 0; j-- {
			cut(&e.Fields[j].Value)
		}
		for j := len(e.Fields) - 1; j >= 0; j-- {
			cut(&e.Fields[j].Name)
		}
		if e.Footer != nil {
			cut(&e.Footer.Text)
		}
		if e.Author != nil {
			cut(&e.Author.Name)
		}
		cut(&e.Title)
	}
	if d.Embeds != nil {
		d.Embeds = embeds
	}
	for _, row := range d.Components {
		if r, ok := row.(discordgo.ActionsRow); ok {
			for i, c := range r.Components {
				if b, ok := c.(discordgo.Button); ok {
					b.Label = clip(b.Label, maxLabel)
					r.Components[i] = b
				}
			}
		}
	}
}
