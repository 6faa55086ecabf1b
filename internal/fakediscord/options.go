package fakediscord

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// buildOptions types the options of sl against the command's definition.
func buildOptions(cmd *discordgo.ApplicationCommand, sl Slash) ([]any, map[string]any, error) {
	defs := cmd.Options
	if sl.Group != "" {
		g := findOpt(defs, sl.Group, discordgo.ApplicationCommandOptionSubCommandGroup)
		if g == nil {
			return nil, nil, fmt.Errorf("%w: /%s has no group %q", ErrBadOptions, cmd.Name, sl.Group)
		}
		defs = g.Options
	}
	if sl.Sub != "" {
		sc := findOpt(defs, sl.Sub, discordgo.ApplicationCommandOptionSubCommand)
		if sc == nil {
			return nil, nil, fmt.Errorf("%w: /%s has no subcommand %q", ErrBadOptions, cmd.Name, sl.Sub)
		}
		defs = sc.Options
	}
	for _, d := range defs {
		if d.Type == discordgo.ApplicationCommandOptionSubCommand || d.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
			return nil, nil, fmt.Errorf("%w: /%s needs a subcommand", ErrBadOptions, cmd.Name)
		}
	}
	given := map[string]bool{}
	out := []any{}
	users, members := map[string]any{}, map[string]any{}
	for _, o := range sl.Options {
		d := findOpt(defs, o.Name, 0)
		if d == nil {
			return nil, nil, fmt.Errorf("%w: /%s has no option %q", ErrBadOptions, cmd.Name, o.Name)
		}
		if given[o.Name] {
			return nil, nil, fmt.Errorf("%w: option %q given twice", ErrBadOptions, o.Name)
		}
		given[o.Name] = true
		v, err := typedValue(d, o.Value)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: option %q: %v", ErrBadOptions, o.Name, err)
		}
		out = append(out, map[string]any{"name": d.Name, "type": int(d.Type), "value": v})
		if d.Type == discordgo.ApplicationCommandOptionUser || d.Type == discordgo.ApplicationCommandOptionMentionable {
			id := v.(string)
			users[id] = map[string]any{"id": id, "username": defaultName(id), "discriminator": "0", "global_name": nil, "avatar": nil, "public_flags": 0}
			if sl.Guild != "" {
				mem := memberJSON(nil, PermsMember)
				delete(mem, "user")
				members[id] = mem
			}
		}
	}
	for _, d := range defs {
		if d.Required && !given[d.Name] {
			return nil, nil, fmt.Errorf("%w: required option %q missing", ErrBadOptions, d.Name)
		}
	}
	if sl.Sub != "" {
		out = []any{map[string]any{"name": sl.Sub, "type": 1, "options": out}}
	}
	if sl.Group != "" {
		out = []any{map[string]any{"name": sl.Group, "type": 2, "options": out}}
	}
	resolved := map[string]any{}
	if len(users) > 0 {
		resolved["users"] = users
	}
	if len(members) > 0 {
		resolved["members"] = members
	}
	return out, resolved, nil
}

func findOpt(defs []*discordgo.ApplicationCommandOption, name string, typ discordgo.ApplicationCommandOptionType) *discordgo.ApplicationCommandOption {
	for _, d := range defs {
		if d.Name == name && (typ == 0 || d.Type == typ) {
			return d
		}
	}
	return nil
}

// jsonKinds name the JSON kinds of option values, by first byte, for errors.
var jsonKinds = map[byte]string{'n': "null", '"': "a string", 't': "a boolean", 'f': "a boolean", '{': "an object", '[': "an array"}

// typedValue converts v to the option's JSON value and checks choices and bounds.
func typedValue(d *discordgo.ApplicationCommandOption, v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil || len(raw) == 0 {
		return nil, fmt.Errorf("a %T is not a JSON value", v)
	}
	kind, ok := jsonKinds[raw[0]]
	var f float64
	if !ok {
		kind, ok = "a number", json.Unmarshal(raw, &f) == nil
	}
	isNum := kind == "a number" && ok
	var out any
	switch d.Type {
	case discordgo.ApplicationCommandOptionString:
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %s", kind)
		}
		if d.MinLength != nil && runeLen(str) < *d.MinLength || d.MaxLength > 0 && runeLen(str) > d.MaxLength {
			return nil, fmt.Errorf("length %d out of bounds", runeLen(str))
		}
		out = str
	case discordgo.ApplicationCommandOptionInteger, discordgo.ApplicationCommandOptionNumber:
		if !isNum {
			return nil, fmt.Errorf("want a number, got %s", kind)
		}
		if d.Type == discordgo.ApplicationCommandOptionInteger && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
			return nil, fmt.Errorf("%v is not an integer Discord accepts", v)
		}
		if d.MinValue != nil && f < *d.MinValue || d.MaxValue != 0 && f > d.MaxValue {
			return nil, fmt.Errorf("%v out of bounds", v)
		}
		out = f
		if d.Type == discordgo.ApplicationCommandOptionInteger {
			out = int64(f)
		}
	case discordgo.ApplicationCommandOptionBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want a bool, got %s", kind)
		}
		out = b
	case discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionChannel,
		discordgo.ApplicationCommandOptionRole, discordgo.ApplicationCommandOptionMentionable:
		id, ok := v.(string)
		switch {
		case ok:
		case kind == "a number":
			id = string(raw) // all its digits, not a float's
		default:
			return nil, fmt.Errorf("want an ID, got %s", kind)
		}
		if n, err := strconv.ParseUint(id, 10, 64); err != nil || n == 0 {
			return nil, fmt.Errorf("%q is not a snowflake", id)
		}
		out = id
	default:
		return nil, fmt.Errorf("option type %d not supported by the fake", d.Type)
	}
	cmp := out
	if i, ok := out.(int64); ok {
		cmp = float64(i)
	}
	if len(d.Choices) > 0 && !slices.ContainsFunc(d.Choices, func(c *discordgo.ApplicationCommandOptionChoice) bool { return c.Value == cmp }) {
		return nil, fmt.Errorf("%v is not one of the choices", v)
	}
	return out, nil
}
