package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage"
	"github.com/lesclefsdutresor/clefs/storage/boltstore"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
	"github.com/lesclefsdutresor/clefs/wire"
)

// The tests are external (package wire_test): they see only the API, and
// importing commands here can never make a cycle should commands one day
// use wire.

// prefix is what every check puts in dst first: the encoders must append
// after it and leave it alone, also on error.
const prefix = "<dst already holds this>"

// agree checks that enc, appending to a buffer holding prefix, writes
// exactly want, or fails when discordgo.Marshal failed (wantErr), leaving
// the buffer as it was. It reports whether discordgo.Marshal succeeded.
func agree(tb testing.TB, name string, want []byte, wantErr error, enc func([]byte) ([]byte, error)) bool {
	tb.Helper()
	got, err := enc([]byte(prefix))
	switch {
	case wantErr != nil && err == nil:
		tb.Errorf("%s: discordgo.Marshal fails (%v) but the encoder wrote %s", name, wantErr, got)
	case wantErr != nil:
		if string(got) != prefix {
			tb.Errorf("%s: on error the encoder returned %q, want the buffer as given", name, got)
		}
	case err != nil:
		tb.Errorf("%s: encoder error %v; discordgo.Marshal wrote %s", name, err, want)
	case !bytes.HasPrefix(got, []byte(prefix)):
		tb.Errorf("%s: the encoder changed what dst held: %q", name, got)
	case !bytes.Equal(got[len(prefix):], want):
		tb.Errorf("%s: output differs from discordgo.Marshal%s", name, diff(got[len(prefix):], want))
	}
	return wantErr == nil
}

// diff shows where got and want part.
func diff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-40)
	return fmt.Sprintf(" at byte %d:\n got: …%q\nwant: …%q\n full got:  %q\n full want: %q",
		i, got[from:min(len(got), i+40)], want[from:min(len(want), i+40)], got, want)
}

// marshal is discordgo.Marshal with a panic turned into an error: the
// encoders must fail where it panics.
func marshal(v any) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("discordgo.Marshal panicked: %v", p)
		}
	}()
	return discordgo.Marshal(v)
}

func checkResponse(tb testing.TB, name string, r *discordgo.InteractionResponse) bool {
	tb.Helper()
	want, err := marshal(*r)
	return agree(tb, name, want, err, func(b []byte) ([]byte, error) { return wire.AppendResponse(b, r) })
}

func checkEdit(tb testing.TB, name string, e *discordgo.WebhookEdit) bool {
	tb.Helper()
	want, err := marshal(e)
	return agree(tb, name, want, err, func(b []byte) ([]byte, error) { return wire.AppendWebhookEdit(b, e) })
}

func checkParams(tb testing.TB, name string, p *discordgo.WebhookParams) bool {
	tb.Helper()
	want, err := marshal(p)
	return agree(tb, name, want, err, func(b []byte) ([]byte, error) { return wire.AppendWebhookParams(b, p) })
}

// checkData checks d in a response, in an edit and in follow-up params,
// as the bot sends it.
func checkData(tb testing.TB, name string, d *discordgo.InteractionResponseData) {
	tb.Helper()
	checkResponse(tb, name, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: d})
	if d == nil {
		return
	}
	content, comps, embeds := d.Content, d.Components, d.Embeds
	checkEdit(tb, name+" (edit)", &discordgo.WebhookEdit{
		Content: &content, Components: &comps, Embeds: &embeds, AllowedMentions: d.AllowedMentions,
	})
	checkParams(tb, name+" (follow-up)", &discordgo.WebhookParams{
		Content: d.Content, Components: d.Components, Embeds: d.Embeds, AllowedMentions: d.AllowedMentions,
		Flags: d.Flags, TTS: d.TTS,
	})
}

// card is a typical game card, as commands renders it: an embed with
// title, a three-line grid, hint, two inline fields, footer and colour, and
// a row of four buttons with emoji.
func card() *discordgo.InteractionResponse {
	arrow := &discordgo.ComponentEmoji{Name: "▶️"}
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseUpdateMessage,
		Data: &discordgo.InteractionResponseData{
			Embeds: []*discordgo.MessageEmbed{{
				Title:       "🗝️ Les Clefs du Trésor",
				Description: "⭐ 💎 💎 💎\n▫️ 🗡️ 🕯️ 🛢️\n▶️ ❔ ❔ ❔\n\n🎉 Three gems! You win **5.00** credits.",
				Color:       0xF1C40F,
				Fields: []*discordgo.MessageEmbedField{
					{Name: "Chest", Value: "🔓🔒🔒", Inline: true},
					{Name: "Balance", Value: "24.50 credits", Inline: true},
				},
				Footer: &discordgo.MessageEmbedFooter{Text: "Ticket #1042 · 0.50 credits a ticket"},
			}},
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.Button{Label: "Row 1", Emoji: arrow, Style: discordgo.PrimaryButton, CustomID: "v1:row:1000000000000000001:1042:0", Disabled: true},
				discordgo.Button{Label: "Row 2", Emoji: arrow, Style: discordgo.PrimaryButton, CustomID: "v1:row:1000000000000000001:1042:1"},
				discordgo.Button{Label: "Row 3", Emoji: arrow, Style: discordgo.PrimaryButton, CustomID: "v1:row:1000000000000000001:1042:2"},
				discordgo.Button{Label: "Auto", Emoji: &discordgo.ComponentEmoji{Name: "⚡"}, Style: discordgo.SecondaryButton, CustomID: "v1:auto:1000000000000000001:1042"},
			}}},
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
		},
	}
}

// Components outside the fast path, each with its own MarshalJSON.
type (
	// badComponent's MarshalJSON fails.
	badComponent struct{}
	// invalidComponent's MarshalJSON returns invalid JSON: encoding/json fails.
	invalidComponent struct{}
	// rawComponent marshals to its own bytes, which encoding/json compacts
	// and HTML-escapes.
	rawComponent string
	// ptrComponent has a pointer-receiver MarshalJSON.
	ptrComponent struct{ s string }
	// embeddedButton and wrappedRow embed discordgo's types but are not them.
	embeddedButton struct{ discordgo.Button }
	wrappedRow     struct{ discordgo.ActionsRow }
	// customButton claims to be a button.
	customButton   struct{}
	plainComponent struct{ A string }
	// numberComponent is a bare number with spaces around.
	numberComponent struct{}
	// emptyComponent's MarshalJSON returns nil, nil: not JSON.
	emptyComponent struct{}
)

var errBad = errors.New("bad component")

func (badComponent) MarshalJSON() ([]byte, error)     { return nil, errBad }
func (badComponent) Type() discordgo.ComponentType    { return 99 }
func (invalidComponent) MarshalJSON() ([]byte, error) { return []byte(`{"a":`), nil }
func (invalidComponent) Type() discordgo.ComponentType {
	return 94
}
func (c rawComponent) MarshalJSON() ([]byte, error) { return []byte(c), nil }
func (rawComponent) Type() discordgo.ComponentType  { return 98 }
func (c *ptrComponent) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte(` "nil < ptr" `), nil
	}
	return []byte(`{"ptr":` + strconv.Quote(c.s) + `}`), nil
}
func (*ptrComponent) Type() discordgo.ComponentType   { return 97 }
func (b embeddedButton) MarshalJSON() ([]byte, error) { return discordgo.Marshal(b.Button) }
func (r wrappedRow) MarshalJSON() ([]byte, error)     { return r.ActionsRow.MarshalJSON() }
func (customButton) MarshalJSON() ([]byte, error)     { return []byte(`{"type":2,"custom":true}`), nil }
func (customButton) Type() discordgo.ComponentType    { return discordgo.ButtonComponent }
func (p plainComponent) MarshalJSON() ([]byte, error) { return json.Marshal(struct{ A string }{p.A}) }
func (plainComponent) Type() discordgo.ComponentType  { return 96 }
func (numberComponent) MarshalJSON() ([]byte, error)  { return []byte(" 1.50e+3 "), nil }
func (numberComponent) Type() discordgo.ComponentType { return 95 }
func (emptyComponent) MarshalJSON() ([]byte, error)   { return nil, nil }
func (emptyComponent) Type() discordgo.ComponentType  { return 93 }

func TestDifferentialTable(t *testing.T) {
	s := func(v string) *string { return &v }
	ephemeral := discordgo.MessageFlagsEphemeral
	noPings := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	fullEmbed := &discordgo.MessageEmbed{
		URL: "https://example.com/?a=1&b=<2>", Type: discordgo.EmbedTypeRich, Title: "Title \"quoted\"",
		Description: "line 1\nline 2\r\n\ttabbed \\ back", Timestamp: "2026-11-30T12:00:00Z", Color: 0x5865F2,
		Footer:    &discordgo.MessageEmbedFooter{Text: "foot", IconURL: "https://i/x.png", ProxyIconURL: "https://p/x.png"},
		Image:     &discordgo.MessageEmbedImage{URL: "https://i/img.png", ProxyURL: "https://p/img.png", Width: 640, Height: -480},
		Thumbnail: &discordgo.MessageEmbedThumbnail{URL: "https://i/th.png", ProxyURL: "https://p/th.png", Width: 1, Height: math.MaxInt},
		Video:     &discordgo.MessageEmbedVideo{URL: "https://v/v.mp4", Width: math.MinInt, Height: 2},
		Provider:  &discordgo.MessageEmbedProvider{URL: "https://prov", Name: "Prov"},
		Author:    &discordgo.MessageEmbedAuthor{URL: "https://a", Name: "Author", IconURL: "https://a/i", ProxyIconURL: "https://a/p"},
		Fields: []*discordgo.MessageEmbedField{
			{Name: "a", Value: "1", Inline: true}, nil, {Name: "", Value: ""}, {Name: "c", Value: "3"},
		},
	}
	emptyParts := &discordgo.MessageEmbed{
		Footer: &discordgo.MessageEmbedFooter{}, Image: &discordgo.MessageEmbedImage{},
		Thumbnail: &discordgo.MessageEmbedThumbnail{}, Video: &discordgo.MessageEmbedVideo{},
		Provider: &discordgo.MessageEmbedProvider{}, Author: &discordgo.MessageEmbedAuthor{},
		Fields: []*discordgo.MessageEmbedField{},
	}
	row := func(cs ...discordgo.MessageComponent) discordgo.ActionsRow {
		return discordgo.ActionsRow{Components: cs}
	}
	buttons := []discordgo.MessageComponent{
		discordgo.Button{},
		discordgo.Button{Label: "zero style", CustomID: "x"},
		discordgo.Button{Label: "link", Style: discordgo.LinkButton, URL: "https://example.com/a?b=c&d=<e>"},
		discordgo.Button{Label: "off", Style: discordgo.DangerButton, Disabled: true, CustomID: "v1:rg:1:2"},
		discordgo.Button{Label: "premium", Style: discordgo.PremiumButton, SKUID: "123456789"},
		discordgo.Button{Label: "id", Style: discordgo.SuccessButton, CustomID: "c", ID: 7},
		discordgo.Button{Label: "neg id", Style: 42, ID: -3},
		discordgo.Button{Label: "emoji name", Emoji: &discordgo.ComponentEmoji{Name: "💎"}},
		discordgo.Button{Label: "emoji id", Emoji: &discordgo.ComponentEmoji{ID: "1234"}},
		discordgo.Button{Label: "emoji animated", Emoji: &discordgo.ComponentEmoji{Animated: true}},
		discordgo.Button{Label: "emoji full", Emoji: &discordgo.ComponentEmoji{Name: "clef", ID: "99", Animated: true}},
		discordgo.Button{Label: "emoji empty", Emoji: &discordgo.ComponentEmoji{}},
		&discordgo.Button{Label: "pointer", Style: discordgo.SecondaryButton, CustomID: "p"},
		&discordgo.Button{},
	}
	components := map[string][]discordgo.MessageComponent{
		"nil":                nil,
		"empty":              {},
		"nil interface":      {nil},
		"every button":       {row(buttons...)},
		"buttons at the top": buttons,
		"row nil components": {discordgo.ActionsRow{}},
		"row empty":          {row()},
		"row with id":        {discordgo.ActionsRow{ID: 12, Components: []discordgo.MessageComponent{discordgo.Button{Label: "a"}}}},
		"row negative id":    {discordgo.ActionsRow{ID: -1}},
		"row pointer":        {&discordgo.ActionsRow{Components: buttons[:3]}, &discordgo.ActionsRow{}},
		"nil row pointer":    {(*discordgo.ActionsRow)(nil)},
		"nil button pointer": {row(discordgo.Button{Label: "ok"}, (*discordgo.Button)(nil))},
		"nil empty output":   {emptyComponent{}},
		"rows in rows":       {row(row(row(discordgo.Button{Label: "deep"}), &discordgo.ActionsRow{ID: 3}))},
		"select menu": {row(discordgo.SelectMenu{
			CustomID: "sel<>", Placeholder: "Pick & choose", MenuType: discordgo.StringSelectMenu,
			Options: []discordgo.SelectMenuOption{{Label: "A", Value: "a", Emoji: &discordgo.ComponentEmoji{Name: "💎"}}},
		})},
		"select menu pointer":  {row(&discordgo.SelectMenu{CustomID: "s"}), row((*discordgo.SelectMenu)(nil))},
		"text input":           {row(discordgo.TextInput{CustomID: "t", Label: "Reason", Style: discordgo.TextInputParagraph, Required: true, MaxLength: 200})},
		"separator":            {discordgo.Separator{}},
		"container":            {discordgo.Container{Components: []discordgo.MessageComponent{row(discordgo.Button{Label: "in"})}}},
		"container nil button": {discordgo.Container{Components: []discordgo.MessageComponent{row(discordgo.Button{}, (*discordgo.Button)(nil))}}},
		"nil container":        {row(), (*discordgo.Container)(nil)},
		"section accessories": {
			discordgo.Section{Components: []discordgo.MessageComponent{discordgo.TextDisplay{Content: "<b>\u2028"}}},
			&discordgo.Section{ID: 3, Accessory: discordgo.Button{Label: "x"}},
			discordgo.Section{Accessory: &discordgo.Thumbnail{Description: new("d")}},
		},
		"section nil accessory pointer": {discordgo.Section{Accessory: (*discordgo.Thumbnail)(nil)}},
		"section nil text pointer":      {&discordgo.Section{Components: []discordgo.MessageComponent{(*discordgo.TextDisplay)(nil)}}},
		"raw HTML and spaces":           {rawComponent(" { \"a\" : \"<b>&</b>\u2028\" , \"n\" : [ 1 , 2 ] } ")},
		"pointer receiver":              {&ptrComponent{s: "x<"}, (*ptrComponent)(nil)},
		"embedded button":               {embeddedButton{discordgo.Button{Label: "emb"}}, wrappedRow{discordgo.ActionsRow{}}},
		"custom types":                  {customButton{}, plainComponent{A: "<&>"}, numberComponent{}},
		"mixed":                         {row(discordgo.Button{Label: "a"}, nil, discordgo.SelectMenu{}, &discordgo.Button{Label: "b"})},
		"bad component":                 {row(discordgo.Button{Label: "ok"}, badComponent{})},
		"invalid component":             {invalidComponent{}},
	}
	embeds := map[string][]*discordgo.MessageEmbed{
		"nil":          nil,
		"empty":        {},
		"nil embed":    {nil},
		"zero embed":   {{}},
		"full":         {fullEmbed},
		"empty parts":  {emptyParts},
		"nil fields":   {{Title: "t", Fields: nil}},
		"two embeds":   {fullEmbed, {Description: "d", Color: -1}},
		"only colour":  {{Color: 0xE67E22}},
		"only type":    {{Type: "weird\x00type"}},
		"only url":     {{URL: "u"}},
		"author name":  {{Author: &discordgo.MessageEmbedAuthor{Name: "n"}}},
		"author url":   {{Author: &discordgo.MessageEmbedAuthor{URL: "u"}}},
		"video height": {{Video: &discordgo.MessageEmbedVideo{Height: 5}}},
		"provider":     {{Provider: &discordgo.MessageEmbedProvider{Name: "p"}}},
		"footer icon":  {{Footer: &discordgo.MessageEmbedFooter{IconURL: "i"}}},
	}
	mentions := map[string]*discordgo.MessageAllowedMentions{
		"nil":          nil,
		"zero":         {},
		"no pings":     noPings,
		"parse all":    {Parse: []discordgo.AllowedMentionType{discordgo.AllowedMentionTypeRoles, discordgo.AllowedMentionTypeUsers, discordgo.AllowedMentionTypeEveryone}},
		"empty lists":  {Parse: nil, Roles: []string{}, Users: []string{}},
		"roles users":  {Roles: []string{"1", "2"}, Users: []string{"<3>"}, RepliedUser: true},
		"replied only": {RepliedUser: true},
	}

	// Responses.
	checkResponse(t, "zero response", &discordgo.InteractionResponse{})
	checkResponse(t, "pong", &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
	checkResponse(t, "data without type", &discordgo.InteractionResponse{Data: &discordgo.InteractionResponseData{}})
	checkResponse(t, "type 255", &discordgo.InteractionResponse{Type: 255, Data: &discordgo.InteractionResponseData{TTS: true}})
	checkResponse(t, "card", card())
	checkData(t, "zero data", &discordgo.InteractionResponseData{})
	checkData(t, "ephemeral text", &discordgo.InteractionResponseData{Content: "❌ Not yours, <@1>!", Flags: ephemeral, AllowedMentions: noPings})
	checkData(t, "all flags", &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsSuppressEmbeds | ephemeral | discordgo.MessageFlagsIsComponentsV2})
	checkData(t, "negative flags", &discordgo.InteractionResponseData{Flags: -1})
	checkData(t, "modal", &discordgo.InteractionResponseData{CustomID: "modal<1>", Title: "Title & more",
		Components: []discordgo.MessageComponent{row(discordgo.TextInput{CustomID: "r", Label: "Why"})}})
	checkData(t, "files are ignored", &discordgo.InteractionResponseData{Content: "f", Files: []*discordgo.File{{Name: "a.txt"}}})
	for name, cs := range components {
		checkData(t, "components "+name, &discordgo.InteractionResponseData{Components: cs})
	}
	for name, es := range embeds {
		checkData(t, "embeds "+name, &discordgo.InteractionResponseData{Embeds: es})
	}
	for name, m := range mentions {
		checkData(t, "mentions "+name, &discordgo.InteractionResponseData{AllowedMentions: m})
	}
	atts := map[string]*[]*discordgo.MessageAttachment{
		"nil":         nil,
		"nil slice":   new([]*discordgo.MessageAttachment),
		"empty slice": {},
		"one":         {{ID: "1", Filename: "grid<1>.png", Width: 3, DurationSecs: 1.5}, nil},
		"NaN":         {{ID: "2", DurationSecs: math.NaN()}},
	}
	for name, a := range atts {
		checkResponse(t, "attachments "+name, &discordgo.InteractionResponse{Type: 4, Data: &discordgo.InteractionResponseData{Attachments: a}})
		checkEdit(t, "attachments "+name, &discordgo.WebhookEdit{Attachments: a})
		if a != nil {
			checkParams(t, "attachments "+name, &discordgo.WebhookParams{Attachments: *a})
		}
	}
	checkData(t, "poll", &discordgo.InteractionResponseData{Content: "vote", Poll: &discordgo.Poll{
		Question: discordgo.PollMedia{Text: "Which <key>?"}, Duration: 24,
		Answers: []discordgo.PollAnswer{{Media: &discordgo.PollMedia{Text: "gold", Emoji: &discordgo.ComponentEmoji{Name: "🥇"}}}, {AnswerID: 2}},
	}})
	checkData(t, "empty poll", &discordgo.InteractionResponseData{Poll: &discordgo.Poll{}})
	checkResponse(t, "choices empty", &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}}})
	checkResponse(t, "choices", &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{
			{Name: "one", Value: 1}, {Name: "two<>", Value: "2", NameLocalizations: map[discordgo.Locale]string{discordgo.French: "deux", discordgo.German: "zwei"}}, nil,
		}}})
	checkResponse(t, "choices NaN", &discordgo.InteractionResponse{Type: 8,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "x", Value: math.Inf(1)}}}})
	checkResponse(t, "choices func", &discordgo.InteractionResponse{Type: 8,
		Data: &discordgo.InteractionResponseData{Content: "c", Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "x", Value: func() {}}}}})
	checkData(t, "everything", &discordgo.InteractionResponseData{
		TTS: true, Content: "all <&>", Components: components["every button"], Embeds: embeds["two embeds"],
		AllowedMentions: mentions["roles users"], Attachments: atts["one"], Poll: &discordgo.Poll{AllowMultiselect: true},
		Flags: ephemeral, Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "n", Value: 2.5}},
		CustomID: "cid", Title: "ttl",
	})

	// Edits: every pointer nil, pointing to zero, to nil or empty slices.
	var nilComps []discordgo.MessageComponent
	var nilEmbeds []*discordgo.MessageEmbed
	checkEdit(t, "zero edit", &discordgo.WebhookEdit{})
	checkEdit(t, "empty content", &discordgo.WebhookEdit{Content: s("")})
	checkEdit(t, "content only", &discordgo.WebhookEdit{Content: s("<@1> \u2029")})
	checkEdit(t, "components only", &discordgo.WebhookEdit{Components: &[]discordgo.MessageComponent{}})
	checkEdit(t, "nil components", &discordgo.WebhookEdit{Components: &nilComps})
	checkEdit(t, "embeds only", &discordgo.WebhookEdit{Embeds: &[]*discordgo.MessageEmbed{}})
	checkEdit(t, "nil embeds", &discordgo.WebhookEdit{Embeds: &nilEmbeds})
	checkEdit(t, "mentions only", &discordgo.WebhookEdit{AllowedMentions: noPings})
	checkEdit(t, "files only", &discordgo.WebhookEdit{Files: []*discordgo.File{{Name: "x"}}})
	checkEdit(t, "bad component", &discordgo.WebhookEdit{Content: s("x"), Components: &[]discordgo.MessageComponent{badComponent{}}})

	// Params.
	checkParams(t, "zero params", &discordgo.WebhookParams{})
	checkParams(t, "tts only", &discordgo.WebhookParams{TTS: true})
	checkParams(t, "empty components", &discordgo.WebhookParams{Components: []discordgo.MessageComponent{}})
	checkParams(t, "empty embeds", &discordgo.WebhookParams{Embeds: []*discordgo.MessageEmbed{}})
	checkParams(t, "nil embed", &discordgo.WebhookParams{Embeds: []*discordgo.MessageEmbed{nil}})
	checkParams(t, "empty attachments", &discordgo.WebhookParams{Attachments: []*discordgo.MessageAttachment{}})
	checkParams(t, "all", &discordgo.WebhookParams{
		Content: "c", Username: "Clefs <bot>", AvatarURL: "https://a/b.png?x=1&y=2", TTS: true,
		Components: components["rows in rows"], Embeds: embeds["full"], AllowedMentions: mentions["parse all"],
		Flags: ephemeral, ThreadName: "thread\u2028name", Files: []*discordgo.File{{Name: "f"}},
	})
	checkParams(t, "username only", &discordgo.WebhookParams{Username: "u"})
	checkParams(t, "avatar only", &discordgo.WebhookParams{AvatarURL: "a"})
	checkParams(t, "thread only", &discordgo.WebhookParams{ThreadName: "t"})
	checkParams(t, "flags only", &discordgo.WebhookParams{Flags: 1 << 62})
	checkParams(t, "bad component", &discordgo.WebhookParams{Components: []discordgo.MessageComponent{invalidComponent{}}})
}

// TestStrings checks the escaping of every byte, every kind of invalid or
// special UTF-8, and long runs, in each place a string goes.
func TestStrings(t *testing.T) {
	var all []string
	for b := 0; b < 256; b++ {
		all = append(all, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for r := rune(0); r < 0x300; r++ {
		all = append(all, string(r))
	}
	all = append(all,
		"", "\u2028", "\u2029", "a\u2028b\u2029c", "\u2027\u202a", "\ufffd", "\uffff", "\U0010ffff",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xf8\x88\x80\x80\x80",
		"\xe2\x80", "\xe2", "\xf0\x9f\x92", "💎\xf0\x9f", "\xe2\x80\xa8\xe2\x80", "é\xe9", "\x80\x80\x80",
		"<script>alert('x')</script>", `"\"\\/`, "\x7f\x7f", "\b\f\n\r\t\v\x00\x1f",
		strings.Repeat("a", 5000), strings.Repeat("💎", 1000)+"\xff", strings.Repeat("<&>", 700),
		strings.Repeat("ab\"", 300)+strings.Repeat("\u2028x", 300),
	)
	for i, s := range all {
		name := fmt.Sprintf("string %d %q", i, s)
		if len(name) > 80 {
			name = name[:80]
		}
		checkResponse(t, name, stringCard(s, s, s, s, s))
		checkEdit(t, name, &discordgo.WebhookEdit{Content: &s})
		checkParams(t, name, &discordgo.WebhookParams{Content: s, Username: s, AvatarURL: s, ThreadName: s})
	}
}

// stringCard is the typical card with the given strings in its content,
// title, description, labels and custom IDs, and everywhere else strings go.
func stringCard(content, title, desc, label, customID string) *discordgo.InteractionResponse {
	r := card()
	d := r.Data
	d.Content = content
	d.CustomID, d.Title = customID, title
	e := d.Embeds[0]
	e.Title, e.Description = title, desc
	e.URL, e.Timestamp, e.Type = customID, label, discordgo.EmbedType(content)
	e.Fields = append(e.Fields, &discordgo.MessageEmbedField{Name: label, Value: desc})
	e.Footer = &discordgo.MessageEmbedFooter{Text: title, IconURL: customID, ProxyIconURL: label}
	e.Author = &discordgo.MessageEmbedAuthor{Name: label, URL: customID, IconURL: desc, ProxyIconURL: title}
	e.Image = &discordgo.MessageEmbedImage{URL: customID, ProxyURL: label}
	e.Thumbnail = &discordgo.MessageEmbedThumbnail{URL: label, ProxyURL: customID}
	e.Video = &discordgo.MessageEmbedVideo{URL: desc}
	e.Provider = &discordgo.MessageEmbedProvider{URL: content, Name: title}
	d.AllowedMentions = &discordgo.MessageAllowedMentions{
		Parse: []discordgo.AllowedMentionType{discordgo.AllowedMentionType(label)}, Roles: []string{customID}, Users: []string{title, desc},
	}
	d.Components = append(d.Components, &discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		&discordgo.Button{Label: label, CustomID: customID, URL: content, SKUID: title,
			Emoji: &discordgo.ComponentEmoji{Name: label, ID: customID}},
	}})
	return r
}

func TestNil(t *testing.T) {
	buf := []byte(prefix)
	for name, enc := range map[string]func() ([]byte, error){
		"response": func() ([]byte, error) { return wire.AppendResponse(buf, nil) },
		"edit":     func() ([]byte, error) { return wire.AppendWebhookEdit(buf, nil) },
		"params":   func() ([]byte, error) { return wire.AppendWebhookParams(buf, nil) },
	} {
		got, err := enc()
		if err == nil {
			t.Errorf("%s: nil value encoded as %q without error", name, got)
		} else if !strings.HasPrefix(err.Error(), "wire: encode ") {
			t.Errorf("%s: error %q lacks its context", name, err)
		}
		if string(got) != prefix {
			t.Errorf("%s: buffer %q changed on error", name, got)
		}
	}
}

// TestErrorsWrapped checks that a failing part's error comes back wrapped
// with context.
func TestErrorsWrapped(t *testing.T) {
	_, err := wire.AppendResponse(nil, &discordgo.InteractionResponse{Data: &discordgo.InteractionResponseData{
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{badComponent{}}}},
	}})
	if !errors.Is(err, errBad) || !strings.HasPrefix(err.Error(), "wire: encode interaction response: marshal component") {
		t.Errorf("error %q does not wrap the component's error with context", err)
	}
}

// TestCycle checks that action rows containing themselves give an error
// where discordgo.Marshal would overflow the stack, and that deep but
// finite nesting still matches.
func TestCycle(t *testing.T) {
	r := &discordgo.ActionsRow{}
	r.Components = []discordgo.MessageComponent{discordgo.Button{Label: "a"}, r}
	cs := make([]discordgo.MessageComponent, 1)
	cs[0] = discordgo.ActionsRow{Components: cs} // a cycle through a shared slice, no pointer
	box := &discordgo.Container{}
	box.Components = []discordgo.MessageComponent{discordgo.Section{Accessory: box}}
	for name, c := range map[string]discordgo.MessageComponent{"pointer": r, "slice": cs[0], "container": box} {
		d := &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{c}}
		if got, err := wire.AppendResponse([]byte(prefix), &discordgo.InteractionResponse{Data: d}); err == nil || string(got) != prefix {
			t.Errorf("%s cycle: got %.60q…, %v; want an error", name, got, err)
		}
		if _, err := wire.AppendWebhookParams(nil, &discordgo.WebhookParams{Components: d.Components}); err == nil {
			t.Errorf("%s cycle in params: no error", name)
		}
	}
	var deep discordgo.MessageComponent = discordgo.Button{Label: "bottom"}
	for i := range 120 {
		if i%2 == 0 {
			deep = discordgo.ActionsRow{Components: []discordgo.MessageComponent{deep}, ID: i}
		} else {
			deep = &discordgo.ActionsRow{Components: []discordgo.MessageComponent{deep, discordgo.Button{}}}
		}
	}
	checkData(t, "120 nested rows", &discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{deep}})
}

// TestAllocs checks that a typical card costs no allocation when dst is
// large enough, and one or two when it is not (the growth of dst).
func TestAllocs(t *testing.T) {
	r := card()
	content, comps, embeds := r.Data.Content, r.Data.Components, r.Data.Embeds
	e := &discordgo.WebhookEdit{Content: &content, Components: &comps, Embeds: &embeds, AllowedMentions: r.Data.AllowedMentions}
	p := &discordgo.WebhookParams{Content: content, Components: comps, Embeds: embeds, AllowedMentions: r.Data.AllowedMentions, Flags: 64}
	ptr := &discordgo.InteractionResponse{Type: 7, Data: pointerForm(t, r.Data)}
	buf := make([]byte, 0, 4096)
	for name, f := range map[string]func(){
		"response":                 func() { buf, _ = wire.AppendResponse(buf[:0], r) },
		"edit":                     func() { buf, _ = wire.AppendWebhookEdit(buf[:0], e) },
		"params":                   func() { buf, _ = wire.AppendWebhookParams(buf[:0], p) },
		"pointer rows and buttons": func() { buf, _ = wire.AppendResponse(buf[:0], ptr) },
	} {
		if n := testing.AllocsPerRun(200, f); n != 0 {
			t.Errorf("%s: %v allocations per run with a large enough dst, want 0", name, n)
		}
	}
	// From a nil dst, only the growth of dst: a doubling each time.
	if n := testing.AllocsPerRun(50, func() { buf, _ = wire.AppendResponse(nil, r) }); n > float64(bits.Len(uint(len(buf)))) {
		t.Errorf("%v allocations from a nil dst for %d bytes, want only dst's growth", n, len(buf))
	}
}

// pointerForm returns d with its rows and buttons as pointers and the
// embeds decoded, as discordgo decodes a message Discord sends back.
func pointerForm(tb testing.TB, d *discordgo.InteractionResponseData) *discordgo.InteractionResponseData {
	tb.Helper()
	raw, err := discordgo.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		tb.Fatalf("decode %s: %v", raw, err)
	}
	return &discordgo.InteractionResponseData{
		Content: m.Content, Components: m.Components, Embeds: m.Embeds, Flags: m.Flags,
		AllowedMentions: d.AllowedMentions,
	}
}

// TestProperty compares the encoders with discordgo.Marshal on thousands of
// random values, from a fixed seed (change it to explore).
func TestProperty(t *testing.T) {
	t.Parallel()
	const seed = 20261130
	n := 2500
	if testing.Short() {
		n = 300
	}
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	encoded := 0 // cases discordgo.Marshal encodes (not an error or a panic)
	for i := range n {
		for _, ok := range []bool{
			checkResponse(t, fmt.Sprintf("random response %d", i), g.response()),
			checkEdit(t, fmt.Sprintf("random edit %d", i), g.edit()),
			checkParams(t, fmt.Sprintf("random params %d", i), g.params()),
		} {
			if ok {
				encoded++
			}
		}
		if t.Failed() {
			t.Fatalf("stopped at case %d (seed %d)", i, seed)
		}
	}
	if encoded < 3*n*2/3 {
		t.Errorf("discordgo.Marshal encoded only %d of %d random values: the generator makes too many failures", encoded, 3*n)
	}
	t.Logf("%d random values, %d encoded, %d refused by both", 3*n, encoded, 3*n-encoded)
}

// gen builds random values of the types the encoders write, biased
// towards the fields' edge values and awkward strings.
type gen struct{ r *rand.Rand }

// pieces are the strings random strings are made of.
var pieces = []string{
	"", "a", "Row 1", "v1:row:1000000000000000001:42:0", "<", ">", "&", "<@123>", `"`, `\`, "\\\"",
	"\x00", "\x01", "\b", "\t", "\n", "\v", "\f", "\r", "\x1b", "\x1f", "\x7f", " ",
	"\u2028", "\u2029", "💎", "🗝️", "▶️", "é", "ß", "中文", "\ufffd", "\U0010ffff",
	"\xff", "\xfe", "\x80", "\xc3", "\xe2\x80", "\xf0\x9f\x92", "\xed\xa0\x80", "\xc0\x80", "\xf5\x80\x80\x80",
	"https://example.com/?a=1&b=2", "**bold**", "</script>",
}

func (g *gen) str() string {
	switch g.r.IntN(20) {
	case 0, 1:
		return ""
	case 2, 3: // random bytes
		b := make([]byte, g.r.IntN(40))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}
		return string(b)
	case 4: // long
		return strings.Repeat(pieces[g.r.IntN(len(pieces))]+"xyz", 50+g.r.IntN(300))
	}
	var b strings.Builder
	for range 1 + g.r.IntN(6) {
		b.WriteString(pieces[g.r.IntN(len(pieces))])
	}
	return b.String()
}

// opt returns s or, half the time, "" (the omitempty case).
func (g *gen) opt() string {
	if g.r.IntN(2) == 0 {
		return ""
	}
	return g.str()
}

func (g *gen) int() int {
	switch g.r.IntN(8) {
	case 0, 1, 2:
		return 0
	case 3:
		return math.MaxInt
	case 4:
		return math.MinInt
	case 5:
		return -1 - g.r.IntN(1000)
	}
	return g.r.IntN(1 << 24)
}

func (g *gen) bool() bool { return g.r.IntN(2) == 0 }

// one is true with probability 1/n.
func (g *gen) one(n int) bool { return g.r.IntN(n) == 0 }

func (g *gen) response() *discordgo.InteractionResponse {
	r := &discordgo.InteractionResponse{}
	if !g.one(5) {
		r.Type = discordgo.InteractionResponseType(g.r.UintN(256))
	}
	if !g.one(5) {
		r.Data = g.data()
	}
	return r
}

func (g *gen) data() *discordgo.InteractionResponseData {
	d := &discordgo.InteractionResponseData{
		TTS: g.bool(), Content: g.opt(), Components: g.components(0), Embeds: g.embeds(),
		AllowedMentions: g.mentions(), Flags: discordgo.MessageFlags(g.int()),
		CustomID: g.opt(), Title: g.opt(),
	}
	if g.one(8) {
		a := g.attachments()
		d.Attachments = &a
	}
	if g.one(10) {
		d.Poll = &discordgo.Poll{Question: discordgo.PollMedia{Text: g.str()}, Duration: g.int()}
	}
	if g.one(10) {
		d.Choices = []*discordgo.ApplicationCommandOptionChoice{{Name: g.str(), Value: g.str()}, {Name: g.str(), Value: g.int()}}
	}
	if g.one(10) {
		d.Files = []*discordgo.File{{Name: g.str()}}
	}
	return d
}

func (g *gen) edit() *discordgo.WebhookEdit {
	e := &discordgo.WebhookEdit{AllowedMentions: g.mentions()}
	if g.bool() {
		s := g.str()
		e.Content = &s
	}
	if g.bool() {
		cs := g.components(0)
		e.Components = &cs
	}
	if g.bool() {
		es := g.embeds()
		e.Embeds = &es
	}
	if g.one(8) {
		a := g.attachments()
		e.Attachments = &a
	}
	return e
}

func (g *gen) params() *discordgo.WebhookParams {
	p := &discordgo.WebhookParams{
		Content: g.opt(), Username: g.opt(), AvatarURL: g.opt(), TTS: g.bool(),
		Components: g.components(0), Embeds: g.embeds(), AllowedMentions: g.mentions(),
		Flags: discordgo.MessageFlags(g.int()), ThreadName: g.opt(),
	}
	if g.one(8) {
		p.Attachments = g.attachments()
	}
	return p
}

func (g *gen) attachments() []*discordgo.MessageAttachment {
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return []*discordgo.MessageAttachment{}
	}
	return []*discordgo.MessageAttachment{{ID: g.str(), Filename: g.str(), Size: g.int(), DurationSecs: g.r.Float64()}, nil}
}

func (g *gen) components(depth int) []discordgo.MessageComponent {
	switch g.r.IntN(6) {
	case 0:
		return nil
	case 1:
		return []discordgo.MessageComponent{}
	}
	cs := make([]discordgo.MessageComponent, 1+g.r.IntN(4))
	for i := range cs {
		cs[i] = g.component(depth)
	}
	return cs
}

func (g *gen) component(depth int) discordgo.MessageComponent {
	switch k := g.r.IntN(100); {
	case k < 30:
		return g.button()
	case k < 45:
		b := g.button()
		return &b
	case k < 60 && depth < 3:
		return discordgo.ActionsRow{Components: g.components(depth + 1), ID: g.int()}
	case k < 70 && depth < 3:
		return &discordgo.ActionsRow{Components: g.components(depth + 1), ID: g.int()}
	case k < 75:
		return nil
	case k == 75: // discordgo.Marshal panics
		return (*discordgo.Button)(nil)
	case k == 76:
		return (*discordgo.ActionsRow)(nil)
	case k < 85:
		return discordgo.SelectMenu{CustomID: g.str(), Placeholder: g.str(),
			Options: []discordgo.SelectMenuOption{{Label: g.str(), Value: g.str(), Emoji: g.emoji()}}}
	case k < 92:
		return &discordgo.TextInput{CustomID: g.str(), Label: g.str(), Value: g.opt(), MaxLength: g.int()}
	case k < 96 && depth < 3:
		return discordgo.Container{Components: g.components(depth + 1), Spoiler: g.bool()}
	}
	return rawComponent(" " + strconv.Quote(g.str()) + " ")
}

func (g *gen) button() discordgo.Button {
	return discordgo.Button{
		Label: g.opt(), Style: discordgo.ButtonStyle(g.r.UintN(8)), Disabled: g.bool(), Emoji: g.emoji(),
		URL: g.opt(), CustomID: g.opt(), SKUID: g.opt(), ID: g.int(),
	}
}

func (g *gen) emoji() *discordgo.ComponentEmoji {
	if g.one(3) {
		return nil
	}
	return &discordgo.ComponentEmoji{Name: g.opt(), ID: g.opt(), Animated: g.bool()}
}

func (g *gen) embeds() []*discordgo.MessageEmbed {
	switch g.r.IntN(5) {
	case 0:
		return nil
	case 1:
		return []*discordgo.MessageEmbed{}
	}
	es := make([]*discordgo.MessageEmbed, 1+g.r.IntN(3))
	for i := range es {
		if !g.one(10) {
			es[i] = g.embed()
		}
	}
	return es
}

func (g *gen) embed() *discordgo.MessageEmbed {
	e := &discordgo.MessageEmbed{
		URL: g.opt(), Type: discordgo.EmbedType(g.opt()), Title: g.opt(), Description: g.opt(),
		Timestamp: g.opt(), Color: g.int(),
	}
	if g.bool() {
		e.Footer = &discordgo.MessageEmbedFooter{Text: g.opt(), IconURL: g.opt(), ProxyIconURL: g.opt()}
	}
	if g.one(3) {
		e.Image = &discordgo.MessageEmbedImage{URL: g.opt(), ProxyURL: g.opt(), Width: g.int(), Height: g.int()}
	}
	if g.one(3) {
		e.Thumbnail = &discordgo.MessageEmbedThumbnail{URL: g.opt(), ProxyURL: g.opt(), Width: g.int(), Height: g.int()}
	}
	if g.one(3) {
		e.Video = &discordgo.MessageEmbedVideo{URL: g.opt(), Width: g.int(), Height: g.int()}
	}
	if g.one(3) {
		e.Provider = &discordgo.MessageEmbedProvider{URL: g.opt(), Name: g.opt()}
	}
	if g.one(3) {
		e.Author = &discordgo.MessageEmbedAuthor{URL: g.opt(), Name: g.opt(), IconURL: g.opt(), ProxyIconURL: g.opt()}
	}
	switch g.r.IntN(4) {
	case 0:
	case 1:
		e.Fields = []*discordgo.MessageEmbedField{}
	default:
		for range 1 + g.r.IntN(4) {
			var f *discordgo.MessageEmbedField
			if !g.one(8) {
				f = &discordgo.MessageEmbedField{Name: g.opt(), Value: g.opt(), Inline: g.bool()}
			}
			e.Fields = append(e.Fields, f)
		}
	}
	return e
}

func (g *gen) mentions() *discordgo.MessageAllowedMentions {
	if g.one(3) {
		return nil
	}
	m := &discordgo.MessageAllowedMentions{RepliedUser: g.bool()}
	list := func() []string {
		switch g.r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return []string{g.str(), g.str()}
	}
	switch g.r.IntN(3) {
	case 1:
		m.Parse = []discordgo.AllowedMentionType{}
	case 2:
		m.Parse = []discordgo.AllowedMentionType{discordgo.AllowedMentionTypeUsers, discordgo.AllowedMentionType(g.str())}
	}
	m.Roles, m.Users = list(), list()
	return m
}

// ExampleAppendResponse encodes an ephemeral reply into a reused buffer.
func ExampleAppendResponse() {
	buf := make([]byte, 0, 1024)
	buf, err := wire.AppendResponse(buf[:0], &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content:         "❌ <@1> & co",
			Flags:           discordgo.MessageFlagsEphemeral,
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(buf))
	// Output:
	// {"type":4,"data":{"tts":false,"content":"❌ \u003c@1\u003e \u0026 co","components":null,"embeds":null,"allowed_mentions":{"parse":[],"replied_user":false},"flags":64}}
}

func BenchmarkAppendResponse(b *testing.B) {
	r := card()
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	var err error
	for b.Loop() {
		if buf, err = wire.AppendResponse(buf[:0], r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkMarshalResponse(b *testing.B) {
	r := card()
	var buf []byte
	b.ReportAllocs()
	var err error
	for b.Loop() {
		if buf, err = discordgo.Marshal(*r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

// The handlers' real responses.

const (
	hGuild   = "1100000000000000000"
	hChannel = "1110000000000000000"
	hAlice   = "1000000000000000001"
	hBob     = "1000000000000000002"
	hMod     = "1000000000000000009"
	// An ordinary member's permissions, and a moderator's (Manage Server).
	hMember int64 = 131939382053959
	hModP   int64 = hMember | discordgo.PermissionManageGuild
)

// recorder is a commands.Responder that keeps everything it is sent.
type recorder struct {
	mu        sync.Mutex
	responses []*discordgo.InteractionResponse
	edits     []*discordgo.WebhookEdit
	followUps []*discordgo.WebhookParams
}

func (r *recorder) Respond(_ context.Context, _ *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.responses = append(r.responses, resp)
	return nil
}

func (r *recorder) EditOriginal(_ context.Context, _ *discordgo.Interaction, e *discordgo.WebhookEdit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.edits = append(r.edits, e)
	return nil
}

func (r *recorder) FollowUp(_ context.Context, _ *discordgo.Interaction, p *discordgo.WebhookParams) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.followUps = append(r.followUps, p)
	return nil
}

// slowStore makes the game's store calls slow while slow is set, so that
// the handlers defer and then edit or follow up.
type slowStore struct {
	storage.Store
	slow atomic.Bool
}

func (s *slowStore) pause() {
	if s.slow.Load() {
		time.Sleep(40 * time.Millisecond)
	}
}

func (s *slowStore) Buy(ctx context.Context, id storage.PlayerID) (storage.Player, storage.Ticket, bool, error) {
	s.pause()
	return s.Store.Buy(ctx, id)
}

func (s *slowStore) Reveal(ctx context.Context, id storage.PlayerID, ticket uint64, rows storage.RowMask) (storage.Player, storage.Ticket, error) {
	s.pause()
	return s.Store.Reveal(ctx, id, ticket, rows)
}

func (s *slowStore) OpenChest(ctx context.Context, id storage.PlayerID, seq int64) (storage.Player, game.Chest, bool, error) {
	s.pause()
	return s.Store.OpenChest(ctx, id, seq)
}

// bot drives a commands.App over a real bolt store.
type bot struct {
	t       *testing.T
	app     *commands.App
	slowApp *commands.App // over store, which is slow while store.slow is set
	store   *slowStore
	rec     *recorder
	seq     int
}

func newBot(t *testing.T) *bot {
	t.Helper()
	plays := 0
	drawer := &storetest.Drawer{PlayFunc: func(int) game.Outcome {
		plays++
		switch plays {
		case 1:
			return storetest.Win(game.TierGem, 500)
		case 2:
			return storetest.Loss(false)
		}
		return storetest.Loss(true) // keys, then the chest
	}}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "x.db"), storage.Options{
		Drawer: drawer, Now: func() time.Time { return now },
		Defaults: storage.Settings{StartingBalance: 2000, DailyAmount: 500, DailyCooldown: 20 * time.Hour, PublicPlays: true},
	})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	slow := &slowStore{Store: st}
	return &bot{
		t:   t,
		app: commands.New(commands.Config{Now: func() time.Time { return now }}, st),
		// Defers after 5 ms, the slow store calls taking 40 ms.
		slowApp: commands.New(commands.Config{DeferAfter: 5 * time.Millisecond, Now: func() time.Time { return now }}, slow),
		store:   slow, rec: &recorder{},
	}
}

func (b *bot) interaction(user string, perms int64, locale discordgo.Locale) *discordgo.Interaction {
	b.seq++
	return &discordgo.Interaction{
		ID: strconv.Itoa(1300000000000000100 + b.seq), AppID: "1200000000000000000",
		GuildID: hGuild, ChannelID: hChannel, Locale: locale, Token: "token" + strconv.Itoa(b.seq), Version: 1,
		Member: &discordgo.Member{User: &discordgo.User{ID: user, Username: "u" + user[len(user)-2:]}, Permissions: perms},
	}
}

// handle runs i and returns the initial response it got.
func (b *bot) handle(i *discordgo.Interaction) *discordgo.InteractionResponse {
	b.t.Helper()
	n := len(b.rec.responses)
	app := b.app
	if b.store.slow.Load() {
		app = b.slowApp
	}
	app.Handle(context.Background(), b.rec, i)
	if len(b.rec.responses) != n+1 {
		b.t.Fatalf("interaction got %d responses, want 1", len(b.rec.responses)-n)
	}
	return b.rec.responses[n]
}

func (b *bot) slash(user string, perms int64, locale discordgo.Locale, name string, opts ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.InteractionResponse {
	b.t.Helper()
	i := b.interaction(user, perms, locale)
	i.Type = discordgo.InteractionApplicationCommand
	i.Data = discordgo.ApplicationCommandInteractionData{ID: "1210000000000000001", Name: name, CommandType: discordgo.ChatApplicationCommand, Options: opts}
	return b.handle(i)
}

func (b *bot) admin(perms int64, sub string, opts ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.InteractionResponse {
	b.t.Helper()
	return b.slash(hMod, perms, discordgo.EnglishUS, "admin", &discordgo.ApplicationCommandInteractionDataOption{
		Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts,
	})
}

// click presses the button whose custom ID starts with prefix (and ends
// with suffix, if given) on the message that shown became, as Discord sends
// it back (decoded).
func (b *bot) click(user string, shown *discordgo.InteractionResponse, prefix string, suffix ...string) *discordgo.InteractionResponse {
	b.t.Helper()
	if shown.Data == nil {
		b.t.Fatalf("no message to click %q on", prefix)
	}
	msg := b.message(shown.Data)
	id := ""
	for _, c := range msg.Components {
		if row, ok := c.(*discordgo.ActionsRow); ok {
			for _, c := range row.Components {
				if bt, ok := c.(*discordgo.Button); ok && strings.HasPrefix(bt.CustomID, prefix) && id == "" &&
					(len(suffix) == 0 || strings.HasSuffix(bt.CustomID, suffix[0])) {
					id = bt.CustomID
				}
			}
		}
	}
	if id == "" {
		b.t.Fatalf("no button %q on the message %s", prefix, msg.Content)
	}
	return b.press(user, msg, id)
}

func (b *bot) press(user string, msg *discordgo.Message, customID string) *discordgo.InteractionResponse {
	b.t.Helper()
	i := b.interaction(user, hMember, discordgo.EnglishGB)
	i.Type = discordgo.InteractionMessageComponent
	i.Data = discordgo.MessageComponentInteractionData{CustomID: customID, ComponentType: discordgo.ButtonComponent}
	i.Message = msg
	return b.handle(i)
}

func (b *bot) message(d *discordgo.InteractionResponseData) *discordgo.Message {
	b.t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		b.t.Fatal(err)
	}
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		b.t.Fatalf("decode message: %v", err)
	}
	m.ID, m.ChannelID = "1310000000000000001", hChannel
	return &m
}

func strOpt(name, v string) *discordgo.ApplicationCommandInteractionDataOption {
	return &discordgo.ApplicationCommandInteractionDataOption{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
}

// TestHandlersResponses drives the real handlers through a game (rows one
// by one, Auto, play again, keys, the chest), the other commands, /admin,
// errors, and slow store calls (deferral, edit, follow-up), and compares
// the encoding of every response, edit and follow-up they send with
// discordgo.Marshal, also in the pointer form Discord's echo decodes to.
func TestHandlersResponses(t *testing.T) {
	t.Parallel()
	b := newBot(t)

	card := b.slash(hAlice, hMember, discordgo.EnglishUS, "play")
	for _, row := range []string{"0", "1", "2"} {
		card = b.click(hAlice, card, "v1:row:"+hAlice+":", ":"+row)
	}
	other := b.click(hBob, card, "v1:again:") // not Bob's card
	if other.Data == nil || other.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("Bob pressing Alice's button: want an ephemeral refusal, got %+v", other)
	}
	for range 4 { // a loss, then three keys: the chest
		card = b.click(hAlice, card, "v1:again:")
		card = b.click(hAlice, card, "v1:auto:")
	}
	card = b.click(hAlice, card, "v1:chest:")
	card = b.click(hAlice, card, "v1:again:")
	b.click(hAlice, card, "v1:auto:")

	for _, loc := range []discordgo.Locale{discordgo.EnglishUS, discordgo.French} {
		for _, name := range []string{"balance", "rules", "history", "leaderboard", "daily", "daily", "nope"} {
			b.slash(hAlice, hMember, loc, name)
		}
		b.slash(hBob, hMember, loc, "play")
	}

	b.admin(hMember, "settings") // not a moderator
	b.admin(hModP, "settings")
	b.admin(hModP, "grant", &discordgo.ApplicationCommandInteractionDataOption{
		Name: "user", Type: discordgo.ApplicationCommandOptionUser, Value: hBob,
	}, strOpt("amount", "12.50"), strOpt("reason", `<b>"gift"</b> & more`+"\u2028"))
	b.admin(hModP, "settings", strOpt("daily-amount", "7"), &discordgo.ApplicationCommandInteractionDataOption{
		Name: "public-plays", Type: discordgo.ApplicationCommandOptionBoolean, Value: false,
	})
	b.admin(hModP, "audit")
	ask := b.admin(hModP, "reset-guild", strOpt("reason", "new season"))
	b.click(hMod, ask, "v1:rgx:")
	ask = b.admin(hModP, "reset-guild")
	b.click(hMod, ask, "v1:rg:")

	ping := b.interaction(hAlice, hMember, "")
	ping.Type = discordgo.InteractionPing
	b.handle(ping)
	auto := b.interaction(hAlice, hMember, "")
	auto.Type = discordgo.InteractionApplicationCommandAutocomplete
	auto.Data = discordgo.ApplicationCommandInteractionData{Name: "admin"}
	b.handle(auto)

	// Slow store: deferred command then edit; deferred update then edit;
	// deferred button with a new (error) message: follow-up.
	b.store.slow.Store(true)
	card = b.slash(hAlice, hMember, discordgo.EnglishUS, "play")
	if card.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("slow /play: response type %d, want a deferral", card.Type)
	}
	edited := b.rec.edits[len(b.rec.edits)-1]
	shown := &discordgo.InteractionResponse{Data: &discordgo.InteractionResponseData{Components: *edited.Components}}
	b.click(hAlice, shown, "v1:auto:")
	b.press(hAlice, nil, "v1:chest:"+hAlice+":99")
	b.store.slow.Store(false)

	rec := b.rec
	if len(rec.responses) < 40 || len(rec.edits) < 2 || len(rec.followUps) < 1 {
		t.Fatalf("recorded %d responses, %d edits, %d follow-ups: the scenario did not run as planned",
			len(rec.responses), len(rec.edits), len(rec.followUps))
	}
	kinds := map[string]bool{}
	for i, r := range rec.responses {
		name := fmt.Sprintf("response %d (type %d)", i, r.Type)
		checkResponse(t, name, r)
		if r.Data != nil {
			checkResponse(t, name+" as echoed", &discordgo.InteractionResponse{Type: r.Type, Data: pointerForm(t, r.Data)})
			for _, c := range r.Data.Components {
				var inner []discordgo.MessageComponent
				switch row := c.(type) {
				case discordgo.ActionsRow:
					inner = row.Components
				case *discordgo.ActionsRow:
					inner = row.Components
				}
				for _, c := range inner {
					switch bt := c.(type) {
					case discordgo.Button:
						kinds[strings.Split(bt.CustomID, ":")[1]] = true
					case *discordgo.Button:
						kinds[strings.Split(bt.CustomID, ":")[1]] = true
					}
				}
			}
		}
	}
	for i, e := range rec.edits {
		checkEdit(t, fmt.Sprintf("edit %d", i), e)
	}
	for i, p := range rec.followUps {
		checkParams(t, fmt.Sprintf("follow-up %d", i), p)
	}
	for _, k := range []string{"row", "auto", "again", "chest", "rg", "rgx"} {
		if !kinds[k] {
			t.Errorf("no %q button among the responses: the scenario missed a card", k)
		}
	}
}
