package fakediscord

import (
	"encoding/json"
	"fmt"
	"math"
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

// describe names the JSON kind of an option's value for an error.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64, json.Number:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// typedValue converts v to the option's JSON value and checks choices and bounds.
func typedValue(d *discordgo.ApplicationCommandOption, v any) (any, error) {
	num := func() (float64, bool) {
		switch x := v.(type) {
		case int:
			return float64(x), true
		case int64:
			return float64(x), true
		case uint64:
			return float64(x), true
		case float64:
			return x, true
		case json.Number:
			f, err := x.Float64()
			return f, err == nil
		}
		return 0, false
	}
	var out any
	switch d.Type {
	case discordgo.ApplicationCommandOptionString:
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %s", describe(v))
		}
		if d.MinLength != nil && runeLen(str) < *d.MinLength || d.MaxLength > 0 && runeLen(str) > d.MaxLength {
			return nil, fmt.Errorf("length %d out of bounds", runeLen(str))
		}
		out = str
	case discordgo.ApplicationCommandOptionInteger, discordgo.ApplicationCommandOptionNumber:
		f, ok := num()
		if !ok {
			return nil, fmt.Errorf("want a number, got %s", describe(v))
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
			return nil, fmt.Errorf("want a bool, got %s", describe(v))
		}
		out = b
	case discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionChannel,
		discordgo.ApplicationCommandOptionRole, discordgo.ApplicationCommandOptionMentionable:
		var id string
		switch x := v.(type) {
		case string:
			id = x
		case json.Number: // all its digits, not a float's
			id = x.String()
		default:
			f, ok := num()
			if !ok {
				return nil, fmt.Errorf("want an ID, got %s", describe(v))
			}
			id = strconv.FormatUint(uint64(f), 10)
		}
		if n, err := strconv.ParseUint(id, 10, 64); err != nil || n == 0 {
			return nil, fmt.Errorf("%q is not a snowflake", id)
		}
		out = id
	default:
		return nil, fmt.Errorf("option type %d not supported by the fake", d.Type)
	}
	if len(d.Choices) > 0 {
		match := false
		for _, c := range d.Choices {
			cv := c.Value
			if i, ok := out.(int64); ok {
				out2 := float64(i)
				match = match || cv == out2
			} else {
				match = match || cv == out
			}
		}
		if !match {
			return nil, fmt.Errorf("%v is not one of the choices", v)
		}
	}
	return out, nil
}
