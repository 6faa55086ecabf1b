package wire

import (
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// DecodeInteraction decodes an interaction as Discord sends it: the "d" of
// a gateway INTERACTION_CREATE event, or the body Discord posts to an
// interactions endpoint. It reads the fields the bot uses into the
// discordgo.Interaction that json.Unmarshal would build, with the same
// values, and leaves the others zero:
//
//   - the interaction: id, application_id, type, data, guild_id,
//     channel_id (or, when absent, the id of the channel object), message,
//     app_permissions, member, user, locale, guild_locale, context, token,
//     version;
//   - data of a command or autocomplete: id, name, type, target_id, options
//     (name, type, value, options, focused) and resolved users, members and
//     channels; of a component: custom_id, component_type, values; of a
//     modal submission: all of it, through discordgo;
//   - member: user, nick, avatar, roles, permissions, pending, flags;
//     user: id, username, global_name, discriminator, avatar, bot,
//     public_flags; channel: id, guild_id, name, type, parent_id;
//   - message: id, channel_id, guild_id, type, content, flags, author,
//     components (rows and buttons read here, other kinds through discordgo)
//     and embeds (title, description, url, type, timestamp, color, footer,
//     author, fields).
//
// Everything else is checked to be valid JSON and skipped. A payload that
// is not valid JSON, or has a value of the wrong type in a field read, is an
// error (*SyntaxError, or one wrapping discordgo's).
func DecodeInteraction(raw []byte) (*discordgo.Interaction, error) {
	return Decoder{}.Decode(raw)
}

// Decoder decodes interactions as DecodeInteraction does, with options.
type Decoder struct {
	// KeepMessage, when not nil, is asked once the rest of the interaction
	// is decoded (its type and data included) whether its message is
	// needed. When it returns false, Message is left nil: the message,
	// most of a click's payload, is only checked to be valid JSON.
	KeepMessage func(i *discordgo.Interaction) bool
}

// Decode decodes raw as DecodeInteraction does, with d's options.
func (d Decoder) Decode(raw []byte) (*discordgo.Interaction, error) {
	i, _, err := d.decode(raw, false)
	return i, err
}

// DecodePrefix decodes the interaction object at the start of b, as Decode
// does, and returns its length n: what follows it is not read. Decode(b[:n])
// gives the same interaction. It lets a reader of a larger document (a
// gateway frame) decode the interaction without first finding its end.
func (d Decoder) DecodePrefix(b []byte) (i *discordgo.Interaction, n int, err error) {
	return d.decode(b, true)
}

// decode reads the interaction at the start of raw (spaces first allowed)
// and returns where it ends; unless prefix, only spaces may follow it.
func (d Decoder) decode(raw []byte, prefix bool) (*discordgo.Interaction, int, error) {
	s := scanner{b: raw, strs: new(arena), keepMessage: d.KeepMessage}
	i := new(discordgo.Interaction)
	if s.peek() != '{' {
		return nil, 0, s.fail("expected an interaction object")
	}
	if err := s.interaction(i); err != nil {
		return nil, 0, err
	}
	n := s.p
	if !prefix {
		if err := s.end(); err != nil {
			return nil, 0, err
		}
	}
	return i, n, nil
}

var interactionKeys = []string{"id", "application_id", "type", "data", "guild_id", "channel_id", "channel",
	"message", "app_permissions", "member", "user", "locale", "guild_locale", "context", "token", "version"}

func (s *scanner) interaction(i *discordgo.Interaction) error {
	var data, message []byte
	var channelID string
	err := s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "id":
				i.ID, err = s.str()
			case "application_id":
				i.AppID, err = s.str()
			case "type":
				err = uintField(s, &i.Type, 8)
			case "data":
				data, err = s.raw()
			case "guild_id":
				i.GuildID, err = s.str()
			case "channel_id":
				i.ChannelID, err = s.str()
			case "channel": // discordgo v0.29 ignores it; its id stands in for a missing channel_id
				if s.peek() != '{' {
					return s.skip()
				}
				err = s.object(func(k []byte) error {
					if string(k) == "id" && s.peek() == '"' {
						id, err := s.str()
						channelID = id
						return err
					}
					return s.skip()
				})
			case "message": // discordgo's Message.UnmarshalJSON starts afresh
				i.Message = nil
				if s.keepMessage != nil { // decided at the end
					message, err = s.raw()
					return err
				}
				if n, e := s.null(); n || e != nil {
					return e
				}
				i.Message = new(discordgo.Message)
				err = s.message(i.Message)
			case "app_permissions":
				err = s.stringInt64(&i.AppPermissions)
			case "member":
				if n, e := s.null(); n || e != nil {
					i.Member = nil
					return e
				}
				if i.Member == nil {
					i.Member = new(discordgo.Member)
				}
				err = s.member(i.Member)
			case "user":
				i.User, err = s.userPtr(i.User)
			case "locale":
				var l string
				l, err = s.str()
				i.Locale = discordgo.Locale(l)
			case "guild_locale":
				if n, e := s.null(); n || e != nil {
					i.GuildLocale = nil
					return e
				}
				var l string
				if l, err = s.str(); err == nil {
					loc := discordgo.Locale(l)
					i.GuildLocale = &loc
				}
			case "context":
				err = uintField(s, &i.Context, 64)
			case "token":
				i.Token, err = s.str()
			case "version":
				err = intField(s, &i.Version)
			default:
				if f := fold(k, interactionKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
	if err != nil {
		return err
	}
	if i.ChannelID == "" {
		i.ChannelID = channelID
	}
	if err := s.interactionData(i, data); err != nil {
		return err
	}
	if message != nil && string(message) != "null" && s.keepMessage(i) {
		m := s.sub(message)
		i.Message = new(discordgo.Message)
		return m.message(i.Message)
	}
	return nil
}

// interactionData decodes data by the interaction's type, as discordgo does.
func (s *scanner) interactionData(i *discordgo.Interaction, data []byte) error {
	d := s.sub(data)
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		if data == nil {
			return s.fail("command interaction without data")
		}
		var v discordgo.ApplicationCommandInteractionData
		if err := d.commandData(&v); err != nil {
			return err
		}
		i.Data = v
	case discordgo.InteractionMessageComponent:
		if data == nil {
			return s.fail("component interaction without data")
		}
		var v discordgo.MessageComponentInteractionData
		if err := d.componentData(&v); err != nil {
			return err
		}
		i.Data = v
	case discordgo.InteractionModalSubmit:
		var v discordgo.ModalSubmitInteractionData
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("wire: modal submission data: %w", err)
		}
		i.Data = v
	}
	return nil
}

var commandDataKeys = []string{"id", "name", "type", "target_id", "options", "resolved"}

func (s *scanner) commandData(v *discordgo.ApplicationCommandInteractionData) error {
	return s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "id":
				v.ID, err = s.str()
			case "name":
				v.Name, err = s.str()
			case "type":
				err = uintField(s, &v.CommandType, 8)
			case "target_id":
				v.TargetID, err = s.str()
			case "options":
				v.Options, err = s.options(v.Options)
			case "resolved":
				if n, e := s.null(); n || e != nil {
					v.Resolved = nil
					return e
				}
				if v.Resolved == nil {
					v.Resolved = new(discordgo.ApplicationCommandInteractionDataResolved)
				}
				err = s.resolved(v.Resolved)
			default:
				if f := fold(k, commandDataKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var optionKeys = []string{"name", "type", "value", "options", "focused"}

// options reads an array of options; old is the slice already decoded for
// the same key (encoding/json reuses its elements).
func (s *scanner) options(old []*discordgo.ApplicationCommandInteractionDataOption) ([]*discordgo.ApplicationCommandInteractionDataOption, error) {
	return pointers(s, old, func(o *discordgo.ApplicationCommandInteractionDataOption) error {
		return s.object(func(k []byte) (err error) {
			for {
				switch string(k) {
				case "name":
					o.Name, err = s.str()
				case "type":
					err = uintField(s, &o.Type, 8)
				case "value":
					o.Value, err = s.any()
				case "options":
					o.Options, err = s.options(o.Options)
				case "focused":
					err = s.boolean(&o.Focused)
				default:
					if f := fold(k, optionKeys); f != nil {
						k = f
						continue
					}
					err = s.skip()
				}
				return err
			}
		})
	})
}

// pointers reads an array of objects into a slice of pointers as
// encoding/json does: the elements it finds in old's backing array are
// decoded into again, a null element is nil, an empty array gives an empty
// slice and null gives nil. elem decodes one object into its argument.
func pointers[T any](s *scanner, old []*T, elem func(*T) error) ([]*T, error) {
	old = old[:cap(old)]
	out := old[:0]
	n := 0
	isNull, err := s.array(func() error {
		var v *T
		if n < len(old) {
			v = old[n]
		}
		n++
		if isNull, err := s.null(); isNull || err != nil {
			out = append(out, nil)
			return err
		}
		if v == nil {
			v = new(T)
		}
		out = append(out, v)
		return elem(v)
	})
	if isNull {
		return nil, err
	}
	if out == nil {
		out = []*T{}
	}
	return out, err
}

var resolvedKeys = []string{"users", "members", "channels"}

func (s *scanner) resolved(r *discordgo.ApplicationCommandInteractionDataResolved) error {
	return s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "users":
				r.Users, err = readMap(s, r.Users, (*scanner).userPtr)
			case "members":
				r.Members, err = readMap(s, r.Members, func(s *scanner, m *discordgo.Member) (*discordgo.Member, error) {
					if n, err := s.null(); n || err != nil {
						return nil, err
					}
					if m == nil {
						m = new(discordgo.Member)
					}
					return m, s.member(m)
				})
			case "channels":
				r.Channels, err = readMap(s, r.Channels, (*scanner).channelPtr)
			default:
				if f := fold(k, resolvedKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

// readMap reads an object of values into m (created when nil), as
// encoding/json fills a map: a null object makes m nil.
func readMap[V any](s *scanner, m map[string]V, val func(*scanner, V) (V, error)) (map[string]V, error) {
	if n, err := s.null(); n || err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]V{}
	}
	err := s.object(func(k []byte) error {
		key := string(k)
		var zero V // encoding/json decodes each entry into a fresh value
		v, err := val(s, zero)
		if err == nil {
			m[key] = v
		}
		return err
	})
	return m, err
}

var componentDataKeys = []string{"custom_id", "component_type", "values"}

func (s *scanner) componentData(v *discordgo.MessageComponentInteractionData) error {
	return s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "custom_id":
				v.CustomID, err = s.str()
			case "component_type":
				err = uintField(s, &v.ComponentType, 64)
			case "values":
				v.Values, err = s.strings()
			default:
				if f := fold(k, componentDataKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

// strings reads an array of strings (null gives nil).
func (s *scanner) strings() ([]string, error) {
	out := []string{}
	isNull, err := s.array(func() error {
		v, err := s.str()
		out = append(out, v)
		return err
	})
	if isNull {
		return nil, err
	}
	return out, err
}

var memberKeys = []string{"user", "nick", "avatar", "roles", "permissions", "pending", "flags"}

func (s *scanner) member(m *discordgo.Member) error {
	return s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "user":
				m.User, err = s.userPtr(m.User)
			case "nick":
				m.Nick, err = s.str()
			case "avatar":
				m.Avatar, err = s.str()
			case "roles":
				m.Roles, err = s.strings()
			case "permissions":
				err = s.stringInt64(&m.Permissions)
			case "pending":
				err = s.boolean(&m.Pending)
			case "flags":
				err = intField(s, &m.Flags)
			default:
				if f := fold(k, memberKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var userKeys = []string{"id", "username", "global_name", "discriminator", "avatar", "bot", "public_flags"}

// userPtr reads a user into u (allocated when nil); null gives nil.
func (s *scanner) userPtr(u *discordgo.User) (*discordgo.User, error) {
	if n, err := s.null(); n || err != nil {
		return nil, err
	}
	if u == nil {
		u = new(discordgo.User)
	}
	return u, s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "id":
				u.ID, err = s.str()
			case "username":
				u.Username, err = s.str()
			case "global_name":
				u.GlobalName, err = s.str()
			case "discriminator":
				u.Discriminator, err = s.str()
			case "avatar":
				u.Avatar, err = s.str()
			case "bot":
				err = s.boolean(&u.Bot)
			case "public_flags":
				err = intField(s, &u.PublicFlags)
			default:
				if f := fold(k, userKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var channelKeys = []string{"id", "guild_id", "name", "type", "parent_id"}

// channelPtr reads a channel into c (allocated when nil); null gives nil.
func (s *scanner) channelPtr(c *discordgo.Channel) (*discordgo.Channel, error) {
	if n, err := s.null(); n || err != nil {
		return nil, err
	}
	if c == nil {
		c = new(discordgo.Channel)
	}
	return c, s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "id":
				c.ID, err = s.str()
			case "guild_id":
				c.GuildID, err = s.str()
			case "name":
				c.Name, err = s.str()
			case "type":
				err = intField(s, &c.Type)
			case "parent_id":
				c.ParentID, err = s.str()
			default:
				if f := fold(k, channelKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var messageKeys = []string{"id", "channel_id", "guild_id", "type", "content", "flags", "author", "components", "embeds"}

func (s *scanner) message(m *discordgo.Message) error {
	m.Components = []discordgo.MessageComponent{} // discordgo always makes it
	return s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "id":
				m.ID, err = s.str()
			case "channel_id":
				m.ChannelID, err = s.str()
			case "guild_id":
				m.GuildID, err = s.str()
			case "type":
				err = intField(s, &m.Type)
			case "content":
				m.Content, err = s.str()
			case "flags":
				err = intField(s, &m.Flags)
			case "author":
				m.Author, err = s.userPtr(m.Author)
			case "components":
				m.Components, err = s.components()
			case "embeds":
				m.Embeds, err = s.embeds(m.Embeds)
			default:
				if f := fold(k, messageKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

// components reads an array of components as discordgo does: rows and
// buttons here, other kinds through discordgo.MessageComponentFromJSON.
func (s *scanner) components() ([]discordgo.MessageComponent, error) {
	out := []discordgo.MessageComponent{}
	_, err := s.array(func() error {
		c, err := s.component()
		out = append(out, c)
		return err
	})
	return out, err
}

var componentKeys = []string{"type", "components", "id", "label", "style", "disabled", "emoji", "url", "custom_id", "sku_id"}

func (s *scanner) component() (discordgo.MessageComponent, error) {
	s.ws()
	start := s.p
	var (
		typ      discordgo.ComponentType
		children []byte
		b        discordgo.Button
		other    bool // a key a row or a button does not have
	)
	err := s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "type":
				err = uintField(s, &typ, 64)
			case "components":
				children, err = s.raw()
			case "id":
				err = intField(s, &b.ID)
			case "label":
				b.Label, err = s.str()
			case "style":
				err = uintField(s, &b.Style, 64)
			case "disabled":
				err = s.boolean(&b.Disabled)
			case "emoji":
				if n, e := s.null(); n || e != nil {
					b.Emoji = nil
					return e
				}
				if b.Emoji == nil {
					b.Emoji = new(discordgo.ComponentEmoji)
				}
				err = s.emoji(b.Emoji)
			case "url":
				b.URL, err = s.str()
			case "custom_id":
				b.CustomID, err = s.str()
			case "sku_id":
				b.SKUID, err = s.str()
			default:
				if f := fold(k, componentKeys); f != nil {
					k = f
					continue
				}
				other = true
				err = s.skip()
			}
			return err
		}
	})
	if err != nil {
		return nil, err
	}
	raw := s.b[start:s.p]
	switch {
	case typ == discordgo.ActionsRowComponent && !other && b == (discordgo.Button{ID: b.ID}):
		row := &discordgo.ActionsRow{ID: b.ID}
		cs := s.sub(children)
		if children == nil {
			row.Components = []discordgo.MessageComponent{}
		} else if row.Components, err = cs.components(); err != nil {
			return nil, err
		}
		return row, nil
	case typ == discordgo.ButtonComponent && children == nil:
		return &b, nil
	}
	c, err := discordgo.MessageComponentFromJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("wire: component: %w", err)
	}
	return c, nil
}

var emojiKeys = []string{"name", "id", "animated"}

func (s *scanner) emoji(e *discordgo.ComponentEmoji) error {
	return s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "name":
				e.Name, err = s.str()
			case "id":
				e.ID, err = s.str()
			case "animated":
				err = s.boolean(&e.Animated)
			default:
				if f := fold(k, emojiKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var embedKeys = []string{"title", "description", "url", "type", "timestamp", "color", "footer", "author", "fields"}

func (s *scanner) embeds(old []*discordgo.MessageEmbed) ([]*discordgo.MessageEmbed, error) {
	return pointers(s, old, func(e *discordgo.MessageEmbed) error {
		return s.object(func(k []byte) (err error) {
			for {
				switch string(k) {
				case "title":
					e.Title, err = s.str()
				case "description":
					e.Description, err = s.str()
				case "url":
					e.URL, err = s.str()
				case "type":
					var t string
					t, err = s.str()
					e.Type = discordgo.EmbedType(t)
				case "timestamp":
					e.Timestamp, err = s.str()
				case "color":
					err = intField(s, &e.Color)
				case "footer":
					e.Footer, err = s.footer(e.Footer)
				case "author":
					e.Author, err = s.embedAuthor(e.Author)
				case "fields":
					e.Fields, err = s.fields(e.Fields)
				default:
					if f := fold(k, embedKeys); f != nil {
						k = f
						continue
					}
					err = s.skip()
				}
				return err
			}
		})
	})
}

var footerKeys = []string{"text", "icon_url", "proxy_icon_url"}

func (s *scanner) footer(f *discordgo.MessageEmbedFooter) (*discordgo.MessageEmbedFooter, error) {
	if n, err := s.null(); n || err != nil {
		return nil, err
	}
	if f == nil {
		f = new(discordgo.MessageEmbedFooter)
	}
	return f, s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "text":
				f.Text, err = s.str()
			case "icon_url":
				f.IconURL, err = s.str()
			case "proxy_icon_url":
				f.ProxyIconURL, err = s.str()
			default:
				if fk := fold(k, footerKeys); fk != nil {
					k = fk
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var embedAuthorKeys = []string{"url", "name", "icon_url", "proxy_icon_url"}

func (s *scanner) embedAuthor(a *discordgo.MessageEmbedAuthor) (*discordgo.MessageEmbedAuthor, error) {
	if n, err := s.null(); n || err != nil {
		return nil, err
	}
	if a == nil {
		a = new(discordgo.MessageEmbedAuthor)
	}
	return a, s.object(func(k []byte) (err error) {
		for {
			switch string(k) {
			case "url":
				a.URL, err = s.str()
			case "name":
				a.Name, err = s.str()
			case "icon_url":
				a.IconURL, err = s.str()
			case "proxy_icon_url":
				a.ProxyIconURL, err = s.str()
			default:
				if f := fold(k, embedAuthorKeys); f != nil {
					k = f
					continue
				}
				err = s.skip()
			}
			return err
		}
	})
}

var fieldKeys = []string{"name", "value", "inline"}

func (s *scanner) fields(old []*discordgo.MessageEmbedField) ([]*discordgo.MessageEmbedField, error) {
	return pointers(s, old, func(f *discordgo.MessageEmbedField) error {
		return s.object(func(k []byte) (err error) {
			for {
				switch string(k) {
				case "name":
					f.Name, err = s.str()
				case "value":
					f.Value, err = s.str()
				case "inline":
					err = s.boolean(&f.Inline)
				default:
					if fk := fold(k, fieldKeys); fk != nil {
						k = fk
						continue
					}
					err = s.skip()
				}
				return err
			}
		})
	})
}
