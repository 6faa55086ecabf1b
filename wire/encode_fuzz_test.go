package wire_test

import (
	"testing"

	"github.com/bwmarrin/discordgo"
)

// FuzzAppendResponse puts the fuzzer's strings in a game card's content,
// title, description, labels and custom IDs (and in every other string of
// stringCard), and checks that the three encoders write what
// discordgo.Marshal writes.
func FuzzAppendResponse(f *testing.F) {
	f.Add("", "", "", "", "")
	f.Add("❌ Not yours, <@1>!", "🗝️ Les Clefs du Trésor", "⭐ 💎 💎 💎\n▫️ 🗡️ 🕯️ 🛢️\n▶️ ❔ ❔ ❔", "Row 1", "v1:row:1000000000000000001:42:0")
	f.Add("<>&", `"quoted" \back\`, "\x00\x01\b\f\n\r\t\x1f\x7f", "\u2028\u2029", "\ufffd")
	f.Add("\xff", "\xe2\x80", "\xed\xa0\x80", "\xf0\x9f\x92", "\xc0\xaf")
	f.Add("é\xe9", "a\u2028b", "</script>", "💎\xf0", "\xf4\x90\x80\x80")
	f.Fuzz(func(t *testing.T, content, title, desc, label, customID string) {
		r := stringCard(content, title, desc, label, customID)
		checkResponse(t, "card", r)
		d := r.Data
		c, cs, es := d.Content, d.Components, d.Embeds
		checkEdit(t, "edit", &discordgo.WebhookEdit{Content: &c, Components: &cs, Embeds: &es, AllowedMentions: d.AllowedMentions})
		checkParams(t, "params", &discordgo.WebhookParams{
			Content: content, Username: title, AvatarURL: customID, Components: cs, Embeds: es,
			AllowedMentions: d.AllowedMentions, Flags: discordgo.MessageFlagsEphemeral, ThreadName: label,
		})
	})
}
