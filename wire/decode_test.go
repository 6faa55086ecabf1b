package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// corpus returns the payloads of testdata: realistic INTERACTION_CREATE
// data (slash commands with options and resolved objects, clicks carrying
// their message, a DM, autocomplete, a modal submission).
func corpus(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no testdata payloads (%v)", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// projectUser keeps the user fields DecodeInteraction reads.
func projectUser(u *discordgo.User) *discordgo.User {
	if u == nil {
		return nil
	}
	return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName,
		Discriminator: u.Discriminator, Avatar: u.Avatar, Bot: u.Bot, PublicFlags: u.PublicFlags}
}

func projectMember(m *discordgo.Member) *discordgo.Member {
	if m == nil {
		return nil
	}
	return &discordgo.Member{User: projectUser(m.User), Nick: m.Nick, Avatar: m.Avatar, Roles: m.Roles,
		Permissions: m.Permissions, Pending: m.Pending, Flags: m.Flags}
}

func projectMap[V any](m map[string]V, f func(V) V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

func projectEmbed(e *discordgo.MessageEmbed) *discordgo.MessageEmbed {
	if e == nil {
		return nil
	}
	return &discordgo.MessageEmbed{Title: e.Title, Description: e.Description, URL: e.URL, Type: e.Type,
		Timestamp: e.Timestamp, Color: e.Color, Footer: e.Footer, Author: e.Author, Fields: e.Fields}
}

// project keeps the fields DecodeInteraction promises to read.
func project(i *discordgo.Interaction) *discordgo.Interaction {
	p := &discordgo.Interaction{ID: i.ID, AppID: i.AppID, Type: i.Type, GuildID: i.GuildID,
		ChannelID: i.ChannelID, AppPermissions: i.AppPermissions, Locale: i.Locale,
		GuildLocale: i.GuildLocale, Context: i.Context, Token: i.Token, Version: i.Version,
		Member: projectMember(i.Member), User: projectUser(i.User)}
	if m := i.Message; m != nil {
		p.Message = &discordgo.Message{ID: m.ID, ChannelID: m.ChannelID, GuildID: m.GuildID, Type: m.Type,
			Content: m.Content, Flags: m.Flags, Author: projectUser(m.Author), Components: m.Components}
		if m.Embeds != nil {
			p.Message.Embeds = make([]*discordgo.MessageEmbed, len(m.Embeds))
			for k, e := range m.Embeds {
				p.Message.Embeds[k] = projectEmbed(e)
			}
		}
	}
	switch d := i.Data.(type) {
	case discordgo.ApplicationCommandInteractionData:
		if r := d.Resolved; r != nil {
			d.Resolved = &discordgo.ApplicationCommandInteractionDataResolved{
				Users:   projectMap(r.Users, projectUser),
				Members: projectMap(r.Members, projectMember),
				Channels: projectMap(r.Channels, func(c *discordgo.Channel) *discordgo.Channel {
					if c == nil {
						return nil
					}
					return &discordgo.Channel{ID: c.ID, GuildID: c.GuildID, Name: c.Name, Type: c.Type, ParentID: c.ParentID}
				}),
			}
		}
		p.Data = d
	case discordgo.MessageComponentInteractionData:
		p.Data = discordgo.MessageComponentInteractionData{CustomID: d.CustomID, ComponentType: d.ComponentType, Values: d.Values}
	default:
		p.Data = i.Data
	}
	return p
}

// compare checks DecodeInteraction against discordgo on raw: when discordgo
// decodes it, DecodeInteraction must too, to the same values in every field
// it reads, and leave the others zero.
func compare(t *testing.T, raw []byte) {
	t.Helper()
	var dg discordgo.InteractionCreate
	dgErr := json.Unmarshal(raw, &dg)
	ours, err := DecodeInteraction(raw)
	comparePrefix(t, raw, ours, err)
	if err == nil && !json.Valid(raw) {
		t.Fatalf("accepted invalid JSON %q", raw)
	}
	if dgErr != nil || dg.Interaction == nil {
		return // discordgo refuses it; refusing it or not is ours to choose
	}
	if err != nil {
		if raw := strings.TrimSpace(string(raw)); raw == "" || raw[0] != '{' {
			return // discordgo takes a bare null; an interaction is an object
		}
		t.Fatalf("discordgo decodes %q; DecodeInteraction: %v", raw, err)
	}
	want := project(dg.Interaction)
	if want.ChannelID == "" {
		want.ChannelID = ours.ChannelID // ours falls back on the channel object's id
	}
	if got := project(ours); !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Fatalf("decoded differently from discordgo\npayload: %s\nours:    %s\ndiscordgo: %s", raw, gj, wj)
	}
	if !reflect.DeepEqual(project(ours), ours) {
		t.Fatalf("DecodeInteraction filled fields it does not promise: %+v", ours)
	}
	// With KeepMessage, the same, with or without the message.
	asked := 0
	kept, err := Decoder{KeepMessage: func(i *discordgo.Interaction) bool { asked++; return true }}.Decode(raw)
	if err != nil || !reflect.DeepEqual(kept, ours) {
		t.Fatalf("KeepMessage true: %+v, %v; want %+v", kept, err, ours)
	}
	dropped, err := Decoder{KeepMessage: func(i *discordgo.Interaction) bool { return false }}.Decode(raw)
	if err != nil {
		t.Fatalf("KeepMessage false: %v", err)
	}
	noMessage := *ours
	noMessage.Message = nil
	if !reflect.DeepEqual(dropped, &noMessage) {
		t.Fatalf("KeepMessage false: %+v; want %+v", dropped, &noMessage)
	}
	if ours.Message != nil && asked != 1 {
		t.Fatalf("KeepMessage asked %d times for one message", asked)
	}
}

// comparePrefix checks DecodePrefix on raw followed by the rest of a
// gateway frame against Decode's result on raw alone (ours, err).
func comparePrefix(t *testing.T, raw []byte, ours *discordgo.Interaction, err error) {
	t.Helper()
	frame := append(append([]byte{}, raw...), `,"s":42,"op":0}`...)
	got, n, perr := Decoder{}.DecodePrefix(frame)
	if perr != nil {
		if err == nil {
			t.Fatalf("Decode reads %q, DecodePrefix refuses it followed by more: %v", raw, perr)
		}
		return
	}
	if n <= 0 || n > len(frame) {
		t.Fatalf("DecodePrefix of %q: length %d", frame, n)
	}
	again, aerr := DecodeInteraction(frame[:n])
	if aerr != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("DecodePrefix of %q: %+v (length %d), Decode of that: %+v, %v", frame, got, n, again, aerr)
	}
	if n > len(raw) { // raw is an unfinished object that what follows completes
		if err == nil {
			t.Fatalf("Decode reads %q, DecodePrefix reads on past it, to %d", raw, n)
		}
		return
	}
	if rest := strings.TrimSpace(string(raw[n:])); (rest == "") != (err == nil) {
		t.Fatalf("%q: DecodePrefix stops at %d, Decode says %v", raw, n, err)
	}
	if err == nil && !reflect.DeepEqual(got, ours) {
		t.Fatalf("%q: DecodePrefix %+v, Decode %+v", raw, got, ours)
	}
}

func TestDecodeMatchesDiscordgo(t *testing.T) {
	for name, raw := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			var dg discordgo.InteractionCreate
			if err := json.Unmarshal(raw, &dg); err != nil {
				t.Fatalf("discordgo refuses the corpus payload: %v", err)
			}
			compare(t, raw)
		})
	}
}

func TestDecodeReadsWhatTheBotUses(t *testing.T) {
	c := corpus(t)
	i, err := DecodeInteraction(c["slash-admin-grant.json"])
	if err != nil {
		t.Fatal(err)
	}
	d, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
	if !ok || d.Name != "admin" || len(d.Options) != 1 || d.Options[0].Name != "grant" {
		t.Fatalf("data = %#v", i.Data)
	}
	sub := d.Options[0].Options
	if len(sub) != 3 || sub[0].Value != "1300000000000000077" || sub[2].Value != "Tournoi « du jeudi » 🏆 <b>&amp;</b>" {
		t.Fatalf("options = %+v %+v %+v", sub[0], sub[1], sub[2])
	}
	if u := d.Resolved.Users["1300000000000000077"]; u == nil || u.GlobalName != "Zoé ✨" || u.PublicFlags != 64 {
		t.Fatalf("resolved user = %+v", u)
	}
	if i.Member.Permissions != 2251799813685247 || i.Member.User.ID != "1300000000000000003" || *i.GuildLocale != "fr" {
		t.Fatalf("member = %+v, guild locale %v", i.Member, i.GuildLocale)
	}

	i, err = DecodeInteraction(c["click-select-in-message.json"])
	if err != nil {
		t.Fatal(err)
	}
	if got := i.Message.Embeds[0].Fields[0].Value; got != "Saison 2 🎉" {
		t.Fatalf("reason field = %q", got)
	}
	row, ok := i.Message.Components[1].(*discordgo.ActionsRow)
	if !ok || len(row.Components) != 3 {
		t.Fatalf("second row = %#v", i.Message.Components[1])
	}
	if b, ok := row.Components[2].(*discordgo.Button); !ok || !b.Disabled || b.Emoji.ID != "123" || !b.Emoji.Animated {
		t.Fatalf("custom-emoji button = %#v", row.Components[2])
	}
	if _, ok := i.Message.Components[0].(*discordgo.ActionsRow).Components[0].(*discordgo.SelectMenu); !ok {
		t.Fatalf("select menu decoded as %T", i.Message.Components[0].(*discordgo.ActionsRow).Components[0])
	}

	// A DM: no member, the channel id from the channel object.
	i, err = DecodeInteraction(c["dm-rules.json"])
	if err != nil {
		t.Fatal(err)
	}
	if i.Member != nil || i.User == nil || i.User.ID != "1300000000000000003" || i.ChannelID != "1300000000000000900" {
		t.Fatalf("DM = member %v, user %+v, channel %q", i.Member, i.User, i.ChannelID)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for name, raw := range map[string]string{
		"empty":              ``,
		"not an object":      `[1]`,
		"truncated":          `{"id":"1","type":2`,
		"trailing data":      `{"id":"1","type":1} {}`,
		"id as a number":     `{"id":1,"type":1}`,
		"type as a string":   `{"id":"1","type":"2"}`,
		"type too big":       `{"id":"1","type":256}`,
		"type fractional":    `{"id":"1","type":2.0}`,
		"bad permissions":    `{"id":"1","type":1,"member":{"permissions":"+5"}}`,
		"spaced permissions": `{"id":"1","type":1,"member":{"permissions":" 5"}}`,
		"command, no data":   `{"id":"1","type":2}`,
		"bad escape":         `{"id":"\q","type":1}`,
		"control char":       "{\"id\":\"a\x01\",\"type\":1}",
		"bad skipped value":  `{"id":"1","type":1,"unknown":[1,2,}`,
		"bad custom id":      `{"id":"1","type":3,"data":{"custom_id":7}}`,
		"bool as string":     `{"id":"1","type":2,"data":{"name":"x","options":[{"name":"a","focused":"yes"}]}}`,
	} {
		if _, err := DecodeInteraction([]byte(raw)); err == nil {
			t.Errorf("%s: %q decoded", name, raw)
		}
	}
}

func TestDecodeEdgeCasesMatchDiscordgo(t *testing.T) {
	for _, raw := range []string{
		`{"ID":"1","TYPE":3,"Data":{"Custom_ID":"x"},"token":"a"}`,           // keys match case-insensitively
		`{"id":"1","type":3,"data":{"custom_id":"x"},"to\u212aen":"kelvin"}`, // and with Unicode folding
		`{"id":"1","type":3,"data":{"custom_id":"x"},"member":{"permissions":"null"}}`,
		`{"id":"1","type":3,"data":{"custom_id":"x"},"member":{"user":{"id":"1"}},"member":{"nick":"n"}}`,
		`{"id":"1","type":3,"data":{"custom_id":"x"},"message":{"id":"1","content":"a"},"message":{"id":"2"}}`,
		`{"id":"1","type":3,"data":{"custom_id":"x"},"message":{"id":"1"},"message":null}`,
		`{"id":"1","type":3,"data":{"custom_id":"\ud800\u0041\udc00x\ud83d\ude00"},"token":"\xff\xfe ok \xc3"}`,
		`{"id":"1","type":2,"data":null}`,
		`{"id":"1","type":2,"data":{"name":"a","options":[{"name":"o","value":{"x":[1,"2"]}},null]}}`,
		`{"id":"1","type":2,"data":{"name":"a","options":[{"name":"o"},{"name":"p"}],"options":[{"type":3}]}}`,
		`{"id":"1","type":3,"data":{"custom_id":"x"},"message":{"components":[{"type":1}],"embeds":[]}}`,
		`{"id":"1","type":3,"data":{"custom_id":"x"},"message":{"components":[{"type":2,"label":"a","components":[]}]}}`,
		`{"id":"1","type":1,"guild_locale":null,"locale":null,"channel":7,"member":null,"user":null}`,
		` {"id":"1","type":9,"data":[1,2,3]} `,
	} {
		t.Run(raw, func(t *testing.T) { compare(t, []byte(raw)) })
	}
}

func FuzzDecodeInteraction(f *testing.F) {
	for _, raw := range corpus(f) {
		f.Add(raw)
	}
	f.Add([]byte(`{"id":"1","type":3,"data":{"custom_id":"v1:auto:1:2"},"member":{"user":{"id":"3"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		compare(t, raw)
	})
}

func BenchmarkDecodeInteraction(b *testing.B) {
	c := corpus(b)
	for _, name := range []string{"slash-play.json", "click-auto.json"} {
		raw := c[name]
		b.Run(strings.TrimSuffix(name, ".json")+"/wire", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for range b.N {
				if _, err := DecodeInteraction(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(strings.TrimSuffix(name, ".json")+"/wire-no-message", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			d := Decoder{KeepMessage: func(*discordgo.Interaction) bool { return false }}
			for range b.N {
				if _, err := d.Decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(strings.TrimSuffix(name, ".json")+"/discordgo", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for range b.N {
				var i discordgo.InteractionCreate
				if err := json.Unmarshal(raw, &i); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
