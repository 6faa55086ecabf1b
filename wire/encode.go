package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// The encoder writes, field by field, what encoding/json writes for the
// discordgo types the bot sends (discordgo.Marshal is json.Marshal): the same
// field order, the same omitempty rules, the same string escaping. The
// custom MarshalJSON methods of discordgo are reproduced for ActionsRow and
// Button (an embedded copy of the struct followed by "type", Style 0 written
// as PrimaryButton). Whatever the bot does not send (attachments, polls,
// autocomplete choices, other component types) is handed to discordgo.Marshal
// and its output appended: it is the very encoding the field would get inside
// the whole value, since none of these types has a pointer-receiver
// MarshalJSON (whose use would depend on addressability). Another component
// type has its own MarshalJSON called, as encoding/json does for an element
// of []MessageComponent, and the result compacted by discordgo.Marshal.
//
// Every writer appends one complete JSON value; a value never ends with '{',
// which lets encKey tell whether a field is the first of its object.

// encMaxDepth bounds the nesting of components in action rows, containers
// and sections. encoding/json does not see a cycle through MarshalJSON
// methods (each call starts a new encoder) and recurses until the
// goroutine's stack overflows, killing the process; the encoder returns an
// error instead. This and nil component pointers (see encComponent) are
// where the encoder departs from discordgo.Marshal: an error where it would
// crash. A finite nesting this deep, which Discord would refuse anyway, is
// refused too.
const encMaxDepth = 10000

// errEncodeNil is returned (wrapped) when the value to encode is a nil pointer.
var errEncodeNil = errors.New("nil value")

// errEncodeNilComponent is returned (wrapped) for a nil pointer in a
// component list.
var errEncodeNilComponent = errors.New("nil pointer in components (encoding/json would panic calling its MarshalJSON)")

// errEncodeTooDeep is returned (wrapped) for components nested deeper than encMaxDepth.
var errEncodeTooDeep = fmt.Errorf("components nested more than %d levels deep (a cycle?)", encMaxDepth)

// AppendResponse appends the JSON of r, as discordgo.Marshal(*r) writes it,
// to dst and returns the extended buffer. It may be called concurrently on
// the same r (it only reads it).
//
// The fields the bot sends are written directly, without allocating when
// dst has room for the result: the response's type and data (tts, content,
// components, embeds, allowed mentions, flags, custom ID, title), action
// rows and buttons (values or pointers), their emoji, embeds with all their
// parts. Anything else (attachments, poll, autocomplete choices, any other
// component type) is marshalled by discordgo.Marshal and appended.
//
// An error comes back when r is nil, when discordgo.Marshal fails on a part
// (a component whose MarshalJSON fails or returns invalid JSON, a NaN in an
// attachment…), and where discordgo.Marshal would crash: a nil *Button,
// *ActionsRow or other discordgo component pointer in a component list (it
// panics), components nested more than 10000 levels deep in rows,
// containers and sections (a cycle, on which it overflows the stack). On
// error dst is returned with its original length.
func AppendResponse(dst []byte, r *discordgo.InteractionResponse) ([]byte, error) {
	if r == nil {
		return dst, fmt.Errorf("wire: encode interaction response: %w", errEncodeNil)
	}
	n := len(dst)
	dst = append(dst, '{')
	if r.Type != 0 {
		dst = append(dst, `"type":`...)
		dst = strconv.AppendUint(dst, uint64(r.Type), 10)
	}
	if r.Data != nil {
		dst = encKey(dst, `"data":`)
		var err error
		if dst, err = encData(dst, r.Data); err != nil {
			return dst[:n], fmt.Errorf("wire: encode interaction response: %w", err)
		}
	}
	return append(dst, '}'), nil
}

// AppendWebhookEdit appends the JSON of e, as discordgo.Marshal(e) writes
// it, to dst and returns the extended buffer. Allocations and errors are as
// for AppendResponse; on error dst is returned with its original length.
func AppendWebhookEdit(dst []byte, e *discordgo.WebhookEdit) ([]byte, error) {
	if e == nil {
		return dst, fmt.Errorf("wire: encode webhook edit: %w", errEncodeNil)
	}
	n := len(dst)
	var err error
	dst = append(dst, '{')
	if e.Content != nil {
		dst = append(dst, `"content":`...)
		dst = encString(dst, *e.Content)
	}
	if e.Components != nil {
		dst = encKey(dst, `"components":`)
		if dst, err = encComponents(dst, *e.Components, 0); err != nil {
			return dst[:n], fmt.Errorf("wire: encode webhook edit: %w", err)
		}
	}
	if e.Embeds != nil {
		dst = encKey(dst, `"embeds":`)
		dst = encEmbeds(dst, *e.Embeds)
	}
	if e.Attachments != nil {
		dst = encKey(dst, `"attachments":`)
		if dst, err = encMarshal(dst, e.Attachments, "attachments"); err != nil {
			return dst[:n], fmt.Errorf("wire: encode webhook edit: %w", err)
		}
	}
	if e.AllowedMentions != nil {
		dst = encKey(dst, `"allowed_mentions":`)
		dst = encAllowedMentions(dst, e.AllowedMentions)
	}
	return append(dst, '}'), nil
}

// AppendWebhookParams appends the JSON of p, as discordgo.Marshal(p) writes
// it, to dst and returns the extended buffer. Allocations and errors are as
// for AppendResponse; on error dst is returned with its original length.
func AppendWebhookParams(dst []byte, p *discordgo.WebhookParams) ([]byte, error) {
	if p == nil {
		return dst, fmt.Errorf("wire: encode webhook params: %w", errEncodeNil)
	}
	n := len(dst)
	var err error
	dst = append(dst, '{')
	if p.Content != "" {
		dst = append(dst, `"content":`...)
		dst = encString(dst, p.Content)
	}
	if p.Username != "" {
		dst = encKey(dst, `"username":`)
		dst = encString(dst, p.Username)
	}
	if p.AvatarURL != "" {
		dst = encKey(dst, `"avatar_url":`)
		dst = encString(dst, p.AvatarURL)
	}
	if p.TTS {
		dst = encKey(dst, `"tts":true`)
	}
	dst = encKey(dst, `"components":`)
	if dst, err = encComponents(dst, p.Components, 0); err != nil {
		return dst[:n], fmt.Errorf("wire: encode webhook params: %w", err)
	}
	if len(p.Embeds) != 0 {
		dst = append(dst, `,"embeds":`...)
		dst = encEmbeds(dst, p.Embeds)
	}
	if len(p.Attachments) != 0 {
		dst = append(dst, `,"attachments":`...)
		if dst, err = encMarshal(dst, p.Attachments, "attachments"); err != nil {
			return dst[:n], fmt.Errorf("wire: encode webhook params: %w", err)
		}
	}
	if p.AllowedMentions != nil {
		dst = append(dst, `,"allowed_mentions":`...)
		dst = encAllowedMentions(dst, p.AllowedMentions)
	}
	if p.Flags != 0 {
		dst = append(dst, `,"flags":`...)
		dst = strconv.AppendInt(dst, int64(p.Flags), 10)
	}
	if p.ThreadName != "" {
		dst = append(dst, `,"thread_name":`...)
		dst = encString(dst, p.ThreadName)
	}
	return append(dst, '}'), nil
}

// encKey appends k (a quoted name and its colon, or a whole field), preceded by
// a comma unless it is the first field of the object just opened.
func encKey(dst []byte, k string) []byte {
	if len(dst) > 0 && dst[len(dst)-1] != '{' {
		dst = append(dst, ',')
	}
	return append(dst, k...)
}

// encMarshal appends discordgo.Marshal(v): the slow path, for the parts
// the bot does not send.
func encMarshal(dst []byte, v any, what string) ([]byte, error) {
	b, err := discordgo.Marshal(v)
	if err != nil {
		return dst, fmt.Errorf("marshal %s: %w", what, err)
	}
	return append(dst, b...), nil
}

func encData(dst []byte, d *discordgo.InteractionResponseData) ([]byte, error) {
	var err error
	dst = append(dst, `{"tts":`...)
	dst = strconv.AppendBool(dst, d.TTS)
	dst = append(dst, `,"content":`...)
	dst = encString(dst, d.Content)
	dst = append(dst, `,"components":`...)
	if dst, err = encComponents(dst, d.Components, 0); err != nil {
		return dst, err
	}
	dst = append(dst, `,"embeds":`...)
	dst = encEmbeds(dst, d.Embeds)
	if d.AllowedMentions != nil {
		dst = append(dst, `,"allowed_mentions":`...)
		dst = encAllowedMentions(dst, d.AllowedMentions)
	}
	if d.Attachments != nil {
		dst = append(dst, `,"attachments":`...)
		if dst, err = encMarshal(dst, d.Attachments, "attachments"); err != nil {
			return dst, err
		}
	}
	if d.Poll != nil {
		dst = append(dst, `,"poll":`...)
		if dst, err = encMarshal(dst, d.Poll, "poll"); err != nil {
			return dst, err
		}
	}
	if d.Flags != 0 {
		dst = append(dst, `,"flags":`...)
		dst = strconv.AppendInt(dst, int64(d.Flags), 10)
	}
	if len(d.Choices) != 0 {
		dst = append(dst, `,"choices":`...)
		if dst, err = encMarshal(dst, d.Choices, "choices"); err != nil {
			return dst, err
		}
	}
	if d.CustomID != "" {
		dst = append(dst, `,"custom_id":`...)
		dst = encString(dst, d.CustomID)
	}
	if d.Title != "" {
		dst = append(dst, `,"title":`...)
		dst = encString(dst, d.Title)
	}
	return append(dst, '}'), nil
}

// encComponents writes a component list; depth counts the enclosing
// rows (and containers and sections).
func encComponents(dst []byte, cs []discordgo.MessageComponent, depth int) ([]byte, error) {
	if cs == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, c := range cs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = encComponent(dst, c, depth); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// encComponent writes one element of a component list as encoding/json
// does. The list's element type is the interface MessageComponent, which
// is itself a json.Marshaler, so encoding/json calls the element's
// MarshalJSON whatever its dynamic value: a nil interface gives null, but a
// nil pointer gets its method called, and for discordgo's components (value
// receivers) that panics, taking discordgo.Marshal down; the encoder
// returns an error instead.
func encComponent(dst []byte, c discordgo.MessageComponent, depth int) ([]byte, error) {
	switch v := c.(type) {
	case nil:
		return append(dst, "null"...), nil
	case discordgo.Button:
		return encButton(dst, &v), nil
	case *discordgo.Button:
		if v == nil {
			return dst, errEncodeNilComponent
		}
		return encButton(dst, v), nil
	case discordgo.ActionsRow:
		return encActionsRow(dst, &v, depth)
	case *discordgo.ActionsRow:
		if v == nil {
			return dst, errEncodeNilComponent
		}
		return encActionsRow(dst, v, depth)
	}
	return encOtherComponent(dst, c, depth)
}

// encOtherComponent writes a component outside the fast path: its
// MarshalJSON output, compacted and HTML-escaped by discordgo.Marshal as
// encoding/json does with a Marshaler's output. depth is the component's
// nesting, for encCheck.
func encOtherComponent(dst []byte, c discordgo.MessageComponent, depth int) ([]byte, error) {
	if err := encCheck(c, depth); err != nil {
		return dst, err
	}
	b, err := c.MarshalJSON()
	if err != nil {
		return dst, fmt.Errorf("marshal component %T: %w", c, err)
	}
	if b == nil {
		b = []byte{} // invalid as JSON, as encoding/json finds; RawMessage(nil) would be null
	}
	return encMarshal(dst, json.RawMessage(b), "component")
}

// encCheck finds, in c and in the components discordgo's layout
// components (rows, containers, sections) hold, what would make their
// MarshalJSON crash: a nil pointer whose type has a value-receiver
// MarshalJSON (the method is called on it and panics), or nesting beyond
// encMaxDepth (a cycle). Other types' MarshalJSON methods are their own
// business.
func encCheck(c discordgo.MessageComponent, depth int) error {
	if depth >= encMaxDepth {
		return errEncodeTooDeep
	}
	var list []discordgo.MessageComponent
	var accessory discordgo.MessageComponent
	switch v := c.(type) {
	case nil:
		return nil
	case discordgo.ActionsRow:
		list = v.Components
	case *discordgo.ActionsRow:
		if v != nil {
			list = v.Components
		}
	case discordgo.Container:
		list = v.Components
	case *discordgo.Container:
		if v != nil {
			list = v.Components
		}
	case discordgo.Section:
		list, accessory = v.Components, v.Accessory
	case *discordgo.Section:
		if v != nil {
			list, accessory = v.Components, v.Accessory
		}
	}
	if v := reflect.ValueOf(c); v.Kind() == reflect.Pointer && v.IsNil() &&
		v.Type().Elem().Implements(encMarshalerType) {
		return fmt.Errorf("%w (%T)", errEncodeNilComponent, c)
	}
	if err := encCheck(accessory, depth+1); err != nil {
		return err
	}
	for _, e := range list {
		if err := encCheck(e, depth+1); err != nil {
			return err
		}
	}
	return nil
}

var encMarshalerType = reflect.TypeFor[json.Marshaler]()

// encActionsRow writes what ActionsRow.MarshalJSON does: its fields, then
// "type".
func encActionsRow(dst []byte, r *discordgo.ActionsRow, depth int) ([]byte, error) {
	if depth >= encMaxDepth {
		return dst, errEncodeTooDeep
	}
	dst = append(dst, `{"components":`...)
	var err error
	if dst, err = encComponents(dst, r.Components, depth+1); err != nil {
		return dst, err
	}
	if r.ID != 0 {
		dst = append(dst, `,"id":`...)
		dst = strconv.AppendInt(dst, int64(r.ID), 10)
	}
	return append(dst, `,"type":1}`...), nil
}

// encButton writes what Button.MarshalJSON does: its fields with Style 0
// as PrimaryButton, then "type".
func encButton(dst []byte, b *discordgo.Button) []byte {
	dst = append(dst, `{"label":`...)
	dst = encString(dst, b.Label)
	dst = append(dst, `,"style":`...)
	style := b.Style
	if style == 0 {
		style = discordgo.PrimaryButton
	}
	dst = strconv.AppendUint(dst, uint64(style), 10)
	dst = append(dst, `,"disabled":`...)
	dst = strconv.AppendBool(dst, b.Disabled)
	if b.Emoji != nil {
		dst = append(dst, `,"emoji":{`...)
		if b.Emoji.Name != "" {
			dst = append(dst, `"name":`...)
			dst = encString(dst, b.Emoji.Name)
		}
		if b.Emoji.ID != "" {
			dst = encKey(dst, `"id":`)
			dst = encString(dst, b.Emoji.ID)
		}
		if b.Emoji.Animated {
			dst = encKey(dst, `"animated":true`)
		}
		dst = append(dst, '}')
	}
	if b.URL != "" {
		dst = append(dst, `,"url":`...)
		dst = encString(dst, b.URL)
	}
	if b.CustomID != "" {
		dst = append(dst, `,"custom_id":`...)
		dst = encString(dst, b.CustomID)
	}
	if b.SKUID != "" {
		dst = append(dst, `,"sku_id":`...)
		dst = encString(dst, b.SKUID)
	}
	if b.ID != 0 {
		dst = append(dst, `,"id":`...)
		dst = strconv.AppendInt(dst, int64(b.ID), 10)
	}
	return append(dst, `,"type":2}`...)
}

func encEmbeds(dst []byte, es []*discordgo.MessageEmbed) []byte {
	if es == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, e := range es {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = encEmbed(dst, e)
	}
	return append(dst, ']')
}

func encEmbed(dst []byte, e *discordgo.MessageEmbed) []byte {
	if e == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	dst = encOptString(dst, `"url":`, e.URL)
	dst = encOptString(dst, `"type":`, string(e.Type))
	dst = encOptString(dst, `"title":`, e.Title)
	dst = encOptString(dst, `"description":`, e.Description)
	dst = encOptString(dst, `"timestamp":`, e.Timestamp)
	dst = encOptInt(dst, `"color":`, e.Color)
	if f := e.Footer; f != nil {
		dst = encKey(dst, `"footer":{`)
		dst = encOptString(dst, `"text":`, f.Text)
		dst = encOptString(dst, `"icon_url":`, f.IconURL)
		dst = encOptString(dst, `"proxy_icon_url":`, f.ProxyIconURL)
		dst = append(dst, '}')
	}
	if im := e.Image; im != nil {
		dst = encKey(dst, `"image":`)
		dst = encMedia(dst, im.URL, im.ProxyURL, im.Width, im.Height)
	}
	if th := e.Thumbnail; th != nil {
		dst = encKey(dst, `"thumbnail":`)
		dst = encMedia(dst, th.URL, th.ProxyURL, th.Width, th.Height)
	}
	if v := e.Video; v != nil {
		dst = encKey(dst, `"video":{`)
		dst = encOptString(dst, `"url":`, v.URL)
		dst = encOptInt(dst, `"width":`, v.Width)
		dst = encOptInt(dst, `"height":`, v.Height)
		dst = append(dst, '}')
	}
	if p := e.Provider; p != nil {
		dst = encKey(dst, `"provider":{`)
		dst = encOptString(dst, `"url":`, p.URL)
		dst = encOptString(dst, `"name":`, p.Name)
		dst = append(dst, '}')
	}
	if a := e.Author; a != nil {
		dst = encKey(dst, `"author":{`)
		dst = encOptString(dst, `"url":`, a.URL)
		dst = encKey(dst, `"name":`)
		dst = encString(dst, a.Name)
		dst = encOptString(dst, `"icon_url":`, a.IconURL)
		dst = encOptString(dst, `"proxy_icon_url":`, a.ProxyIconURL)
		dst = append(dst, '}')
	}
	if len(e.Fields) != 0 {
		dst = encKey(dst, `"fields":[`)
		for i, f := range e.Fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			if f == nil {
				dst = append(dst, "null"...)
				continue
			}
			dst = append(dst, `{"name":`...)
			dst = encString(dst, f.Name)
			dst = append(dst, `,"value":`...)
			dst = encString(dst, f.Value)
			if f.Inline {
				dst = append(dst, `,"inline":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// encMedia writes a MessageEmbedImage or MessageEmbedThumbnail (same
// fields, same tags).
func encMedia(dst []byte, url, proxyURL string, width, height int) []byte {
	dst = append(dst, `{"url":`...)
	dst = encString(dst, url)
	dst = encOptString(dst, `,"proxy_url":`, proxyURL)
	dst = encOptInt(dst, `,"width":`, width)
	dst = encOptInt(dst, `,"height":`, height)
	return append(dst, '}')
}

func encAllowedMentions(dst []byte, m *discordgo.MessageAllowedMentions) []byte {
	dst = append(dst, `{"parse":`...)
	if m.Parse == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, t := range m.Parse {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = encString(dst, string(t))
		}
		dst = append(dst, ']')
	}
	if len(m.Roles) != 0 {
		dst = append(dst, `,"roles":`...)
		dst = encStrings(dst, m.Roles)
	}
	if len(m.Users) != 0 {
		dst = append(dst, `,"users":`...)
		dst = encStrings(dst, m.Users)
	}
	dst = append(dst, `,"replied_user":`...)
	dst = strconv.AppendBool(dst, m.RepliedUser)
	return append(dst, '}')
}

// encStrings writes a non-nil string slice.
func encStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = encString(dst, s)
	}
	return append(dst, ']')
}

// encOptString writes an omitempty string field; k is the quoted name and its
// colon, with a leading comma when the field is never the object's first.
func encOptString(dst []byte, k, s string) []byte {
	if s == "" {
		return dst
	}
	if k[0] == ',' {
		dst = append(dst, k...)
	} else {
		dst = encKey(dst, k)
	}
	return encString(dst, s)
}

// encOptInt writes an omitempty int field; k is as for encOptString.
func encOptInt(dst []byte, k string, v int) []byte {
	if v == 0 {
		return dst
	}
	if k[0] == ',' {
		dst = append(dst, k...)
	} else {
		dst = encKey(dst, k)
	}
	return strconv.AppendInt(dst, int64(v), 10)
}

// encSafe marks the bytes encoding/json writes as they are (with its
// HTML escaping, which json.Marshal always does): printable ASCII but for
// '"', '\\', '<', '>' and '&'. Every byte from 0x80 is false: multi-byte
// sequences are checked rune by rune.
var encSafe = [256]bool{
	' ': true, '!': true, '#': true, '$': true, '%': true, '\'': true, '(': true, ')': true,
	'*': true, '+': true, ',': true, '-': true, '.': true, '/': true, '0': true, '1': true,
	'2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	':': true, ';': true, '=': true, '?': true, '@': true, 'A': true, 'B': true, 'C': true,
	'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true, 'J': true, 'K': true,
	'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true, 'S': true,
	'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true, '[': true,
	']': true, '^': true, '_': true, '`': true, 'a': true, 'b': true, 'c': true, 'd': true,
	'e': true, 'f': true, 'g': true, 'h': true, 'i': true, 'j': true, 'k': true, 'l': true,
	'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true, 's': true, 't': true,
	'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true, '{': true, '|': true,
	'}': true, '~': true, 0x7f: true,
}

const encHex = "0123456789abcdef"

// encString writes s as a JSON string exactly as encoding/json does:
// '"' and '\\' escaped with a backslash; \b \f \n \r \t by their short
// escapes; other control characters and '<', '>', '&' as \u00XX; U+2028 and
// U+2029 as \u2028 and \u2029; each byte of invalid UTF-8 as \ufffd. Runs of
// bytes needing nothing are copied at once.
func encString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if encSafe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', encHex[c>>4], encHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', encHex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
