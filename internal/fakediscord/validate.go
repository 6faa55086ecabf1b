package fakediscord

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// Message flags the fake knows.
const (
	flagSuppressEmbeds        = 1 << 2
	flagEphemeral             = 1 << 6
	flagLoading               = 1 << 7
	flagSuppressNotifications = 1 << 12
	flagComponentsV2          = 1 << 15
	allowedResponseFlags      = flagSuppressEmbeds | flagEphemeral | flagSuppressNotifications | flagComponentsV2
)

// msgPatch is a message payload: the fields present and their values.
type msgPatch struct {
	content       *string // nil: absent
	embeds        json.RawMessage
	setEmbeds     bool
	hasEmbeds     bool // embeds is a non-empty array
	components    json.RawMessage
	setComponents bool
	hasComponents bool // components is a non-empty array
	flags         int
	setFlags      bool
	kept          []string // the IDs of the attachments an edit keeps…
	setKept       bool     // …if its JSON has "attachments"
	files         []upload // the files of a multipart body, added as attachments
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func maxLen(errs *[]fieldErr, path, s string, max int) {
	if runeLen(s) > max {
		*errs = append(*errs, fieldErr{path, "BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length.", max)})
	}
}

func lenRange(errs *[]fieldErr, path, s string, min, max int) {
	if n := runeLen(s); n < min || n > max {
		*errs = append(*errs, fieldErr{path, "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between %d and %d in length.", min, max)})
	}
}

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// parseMessage decodes and validates a message payload (content, embeds,
// components, flags) like Discord. prefix is the path of the payload in
// Discord's error object ("data" for a callback, "" for a webhook call).
func parseMessage(raw []byte, prefix string, allowedFlags int) (msgPatch, []fieldErr) {
	var p msgPatch
	var errs []fieldErr
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return p, []fieldErr{{prefix, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"}}
	}
	if v, ok := fields["content"]; ok {
		var c string // null: empty
		if json.Unmarshal(v, &c) != nil {
			errs = append(errs, fieldErr{join(prefix, "content"), "BASE_TYPE_STRING", "Must be a string."})
		}
		maxLen(&errs, join(prefix, "content"), c, 2000)
		p.content = &c
	}
	if v, ok := fields["flags"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &p.flags); err != nil {
			errs = append(errs, fieldErr{join(prefix, "flags"), "NUMBER_TYPE_COERCE", "Value is not int."})
		} else if p.flags&^allowedFlags != 0 {
			errs = append(errs, fieldErr{join(prefix, "flags"), "MESSAGE_FLAGS_INVALID", fmt.Sprintf("Invalid flags %d: only %d may be set", p.flags, allowedFlags)})
		}
		p.setFlags = true
	}
	if v, ok := fields["embeds"]; ok {
		p.setEmbeds = true
		if !isNull(v) {
			p.embeds, p.hasEmbeds = v, !emptyArray(v)
			errs = append(errs, validateEmbeds(v, join(prefix, "embeds"))...)
		}
	}
	if v, ok := fields["components"]; ok {
		p.setComponents = true
		if !isNull(v) {
			p.components, p.hasComponents = v, !emptyArray(v)
			errs = append(errs, validateComponents(v, join(prefix, "components"), p.flags&flagComponentsV2 != 0)...)
		}
	}
	if v, ok := fields["attachments"]; ok {
		kept, aerrs := parseKept(v, join(prefix, "attachments"))
		p.kept, p.setKept = kept, aerrs == nil
		errs = append(errs, aerrs...)
	}
	return p, errs
}

type wireEmbed struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Color       *int64 `json:"color"`
	Footer      *struct {
		Text string `json:"text"`
	} `json:"footer"`
	Author *struct {
		Name string `json:"name"`
	} `json:"author"`
	Fields []struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	} `json:"fields"`
}

func validateEmbeds(raw json.RawMessage, path string) []fieldErr {
	var embeds []wireEmbed
	if err := json.Unmarshal(raw, &embeds); err != nil {
		return []fieldErr{{path, "BASE_TYPE_ARRAY", "Must be an array of embeds: " + err.Error()}}
	}
	var errs []fieldErr
	if len(embeds) > 10 {
		errs = append(errs, fieldErr{path, "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length."})
	}
	total := 0
	for i, e := range embeds {
		ep := join(path, strconv.Itoa(i))
		maxLen(&errs, join(ep, "title"), e.Title, 256)
		maxLen(&errs, join(ep, "description"), e.Description, 4096)
		total += runeLen(e.Title) + runeLen(e.Description)
		if e.Color != nil && (*e.Color < 0 || *e.Color > 0xFFFFFF) {
			errs = append(errs, fieldErr{join(ep, "color"), "NUMBER_TYPE_MAX", "int value should be less than or equal to 16777215."})
		}
		if e.URL != "" && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
			errs = append(errs, fieldErr{join(ep, "url"), "URL_TYPE_INVALID_URL", "Not a well formed URL."})
		}
		maxLen(&errs, join(ep, "url"), e.URL, 2048)
		if e.Footer != nil {
			lenRange(&errs, join(ep, "footer.text"), e.Footer.Text, 1, 2048)
			total += runeLen(e.Footer.Text)
		}
		if e.Author != nil {
			lenRange(&errs, join(ep, "author.name"), e.Author.Name, 1, 256)
			total += runeLen(e.Author.Name)
		}
		if len(e.Fields) > 25 {
			errs = append(errs, fieldErr{join(ep, "fields"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."})
		}
		for j, f := range e.Fields {
			fp := join(ep, "fields."+strconv.Itoa(j))
			if f.Name == nil {
				errs = append(errs, fieldErr{join(fp, "name"), "BASE_TYPE_REQUIRED", "This field is required"})
			} else {
				lenRange(&errs, join(fp, "name"), *f.Name, 1, 256)
				total += runeLen(*f.Name)
			}
			if f.Value == nil {
				errs = append(errs, fieldErr{join(fp, "value"), "BASE_TYPE_REQUIRED", "This field is required"})
			} else {
				lenRange(&errs, join(fp, "value"), *f.Value, 1, 1024)
				total += runeLen(*f.Value)
			}
		}
		if e.Title == "" && e.Description == "" && len(e.Fields) == 0 && e.Footer == nil && e.Author == nil {
			errs = append(errs, fieldErr{ep, "EMBED_EMPTY", "Embed must have at least a title, description, field, footer or author."})
		}
	}
	if total > 6000 {
		errs = append(errs, fieldErr{path, "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"})
	}
	return errs
}

type wireComponent struct {
	Type        int             `json:"type"`
	CustomID    *string         `json:"custom_id"`
	Style       int             `json:"style"`
	Label       string          `json:"label"`
	Emoji       json.RawMessage `json:"emoji"`
	URL         string          `json:"url"`
	SKUID       string          `json:"sku_id"`
	Disabled    bool            `json:"disabled"`
	Placeholder string          `json:"placeholder"`
	MinValues   *int            `json:"min_values"`
	MaxValues   *int            `json:"max_values"`
	Options     []struct {
		Label       string `json:"label"`
		Value       string `json:"value"`
		Description string `json:"description"`
	} `json:"options"`
	Components []wireComponent  `json:"components"`
	Accessory  *wireComponent   `json:"accessory"`
	Content    *string          `json:"content"`
	Items      []map[string]any `json:"items"`
}

// validateComponents checks action rows and their buttons and selects.
// Components V2 (flag 1<<15) layouts are accepted with only their custom
// IDs checked.
func validateComponents(raw json.RawMessage, path string, v2 bool) []fieldErr {
	var rows []wireComponent
	if err := json.Unmarshal(raw, &rows); err != nil {
		return []fieldErr{{path, "BASE_TYPE_ARRAY", "Must be an array of components: " + err.Error()}}
	}
	var errs []fieldErr
	ids := map[string]string{} // custom_id → path of its first use
	checkID := func(p string, id *string, required bool) {
		if id == nil {
			if required {
				errs = append(errs, fieldErr{join(p, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required"})
			}
			return
		}
		lenRange(&errs, join(p, "custom_id"), *id, 1, 100)
		if _, dup := ids[*id]; dup {
			errs = append(errs, fieldErr{join(p, "custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated"})
		}
		ids[*id] = p
	}
	if v2 {
		var walk func(cs []wireComponent, p string)
		walk = func(cs []wireComponent, p string) {
			for i, c := range cs {
				cp := join(p, strconv.Itoa(i))
				checkID(cp, c.CustomID, false)
				walk(c.Components, join(cp, "components"))
				if c.Accessory != nil {
					walk([]wireComponent{*c.Accessory}, join(cp, "accessory"))
				}
			}
		}
		walk(rows, path)
		return errs
	}
	if len(rows) > 5 {
		errs = append(errs, fieldErr{path, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."})
	}
	for i, row := range rows {
		rp := join(path, strconv.Itoa(i))
		if row.Type != int(discordgo.ActionsRowComponent) {
			errs = append(errs, fieldErr{join(rp, "type"), "UNION_TYPE_CHOICES", fmt.Sprintf("Value of field \"type\" must be one of (1,); got %d.", row.Type)})
			continue
		}
		if n := len(row.Components); n < 1 || n > 5 {
			errs = append(errs, fieldErr{join(rp, "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length."})
		}
		buttons, selects := 0, 0
		for j, c := range row.Components {
			cp := join(rp, "components."+strconv.Itoa(j))
			switch discordgo.ComponentType(c.Type) {
			case discordgo.ButtonComponent:
				buttons++
				errs = append(errs, validateButton(c, cp)...)
				if c.Style != int(discordgo.LinkButton) && c.Style != 6 {
					checkID(cp, c.CustomID, true)
				}
			case discordgo.SelectMenuComponent, discordgo.UserSelectMenuComponent, discordgo.RoleSelectMenuComponent,
				discordgo.MentionableSelectMenuComponent, discordgo.ChannelSelectMenuComponent:
				selects++
				checkID(cp, c.CustomID, true)
				errs = append(errs, validateSelect(c, cp)...)
			default:
				errs = append(errs, fieldErr{join(cp, "type"), "COMPONENT_TYPE_INVALID", fmt.Sprintf("Component type %d is not valid in an action row of a message.", c.Type)})
			}
		}
		if selects > 0 && (selects > 1 || buttons > 0) {
			errs = append(errs, fieldErr{join(rp, "components"), "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width"})
		}
	}
	return errs
}

func validateButton(c wireComponent, p string) []fieldErr {
	var errs []fieldErr
	maxLen(&errs, join(p, "label"), c.Label, 80)
	switch {
	case c.Style < 1 || c.Style > 6:
		errs = append(errs, fieldErr{join(p, "style"), "BASE_TYPE_CHOICES", fmt.Sprintf("Value must be one of {1, 2, 3, 4, 5, 6}; got %d.", c.Style)})
	case c.Style == int(discordgo.LinkButton):
		if c.URL == "" {
			errs = append(errs, fieldErr{join(p, "url"), "BASE_TYPE_REQUIRED", "This field is required"})
		}
		if c.CustomID != nil {
			errs = append(errs, fieldErr{join(p, "custom_id"), "BUTTON_COMPONENT_CUSTOM_ID_URL_MUTUALLY_EXCLUSIVE", "A custom id and url cannot both be specified"})
		}
	case c.Style == 6:
		if c.SKUID == "" {
			errs = append(errs, fieldErr{join(p, "sku_id"), "BASE_TYPE_REQUIRED", "This field is required"})
		}
	default:
		if c.URL != "" {
			errs = append(errs, fieldErr{join(p, "url"), "BUTTON_COMPONENT_URL_NOT_ALLOWED", "A url may only be specified with a link button"})
		}
	}
	if c.Style != 6 && c.Label == "" && isNull(c.Emoji) {
		errs = append(errs, fieldErr{p, "BUTTON_COMPONENT_INVALID", "A button must have a label or an emoji"})
	}
	if !isNull(c.Emoji) {
		var e struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		if json.Unmarshal(c.Emoji, &e) != nil || (e.ID == "" && e.Name == "") {
			errs = append(errs, fieldErr{join(p, "emoji"), "COMPONENT_INVALID_EMOJI", "Invalid emoji"})
		} else if e.ID != "" {
			if _, err := strconv.ParseUint(e.ID, 10, 64); err != nil {
				errs = append(errs, fieldErr{join(p, "emoji.id"), "COMPONENT_INVALID_EMOJI", "Invalid emoji"})
			}
		} else if strings.HasPrefix(e.Name, "<") || strings.HasPrefix(e.Name, ":") {
			// A custom emoji written as <:name:id> in the name field is refused by Discord.
			errs = append(errs, fieldErr{join(p, "emoji.name"), "COMPONENT_INVALID_EMOJI", "Invalid emoji"})
		}
	}
	return errs
}

func validateSelect(c wireComponent, p string) []fieldErr {
	var errs []fieldErr
	maxLen(&errs, join(p, "placeholder"), c.Placeholder, 150)
	if c.MinValues != nil && (*c.MinValues < 0 || *c.MinValues > 25) {
		errs = append(errs, fieldErr{join(p, "min_values"), "NUMBER_TYPE_MAX", "Must be between 0 and 25."})
	}
	if c.MaxValues != nil && (*c.MaxValues < 1 || *c.MaxValues > 25) {
		errs = append(errs, fieldErr{join(p, "max_values"), "NUMBER_TYPE_MAX", "Must be between 1 and 25."})
	}
	if c.Type == int(discordgo.SelectMenuComponent) {
		if n := len(c.Options); n < 1 || n > 25 {
			errs = append(errs, fieldErr{join(p, "options"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length."})
		}
		for i, o := range c.Options {
			op := join(p, "options."+strconv.Itoa(i))
			lenRange(&errs, join(op, "label"), o.Label, 1, 100)
			lenRange(&errs, join(op, "value"), o.Value, 1, 100)
			maxLen(&errs, join(op, "description"), o.Description, 100)
		}
	}
	return errs
}

// chatNameRE is Discord's rule for chat command and option names.
var chatNameRE = regexp.MustCompile(`^[-_'\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

func checkName(errs *[]fieldErr, path, name string, chat bool) {
	if chat {
		if !chatNameRE.MatchString(name) {
			*errs = append(*errs, fieldErr{path, "APPLICATION_COMMAND_INVALID_NAME", fmt.Sprintf("Command name is invalid: %q", name)})
		} else if strings.ToLower(name) != name {
			*errs = append(*errs, fieldErr{path, "APPLICATION_COMMAND_INVALID_NAME", "Command name must be lowercase"})
		}
		return
	}
	lenRange(errs, path, name, 1, 32)
}

func checkLocalizations(errs *[]fieldErr, path string, m map[discordgo.Locale]string, check func(path, v string)) {
	for loc, v := range m {
		if _, ok := discordgo.Locales[loc]; !ok {
			*errs = append(*errs, fieldErr{join(path, string(loc)), "ENUM_TYPE_COERCE", fmt.Sprintf("Value %q is not a valid enum value.", loc)})
			continue
		}
		check(join(path, string(loc)), v)
	}
}

// validateCommands checks a bulk overwrite like Discord, of a guild's
// commands or the global ones, for an application with Activities or not,
// and returns the decoded commands.
func validateCommands(raw []byte, guild, activities bool) ([]*appCommand, []fieldErr) {
	var cmds []*appCommand
	if err := json.Unmarshal(raw, &cmds); err != nil {
		return nil, []fieldErr{{"", "BASE_TYPE_ARRAY", "Must be an array of application commands: " + err.Error()}}
	}
	var errs []fieldErr
	seen := map[string]bool{}
	count := map[discordgo.ApplicationCommandType]int{}
	for i, c := range cmds {
		p := strconv.Itoa(i)
		if c == nil {
			errs = append(errs, fieldErr{p, "BASE_TYPE_REQUIRED", "This field is required"})
			continue
		}
		c.Type = cmp.Or(c.Type, discordgo.ChatApplicationCommand)
		if c.Type < 1 || c.Type > 4 {
			errs = append(errs, fieldErr{join(p, "type"), "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4}."})
			continue
		}
		count[c.Type]++
		chat, entry := c.Type == discordgo.ChatApplicationCommand, c.Type == primaryEntryPoint
		switch {
		case entry && guild: // the wording is the fake's own
			errs = append(errs, fieldErr{join(p, "type"), "APPLICATION_COMMAND_TYPE_INVALID", "Primary entry point commands can only be global"})
		case c.Handler != 0 && (!entry || !activities):
			errs = append(errs, fieldErr{join(p, "handler"), "APPLICATION_COMMAND_HANDLER_INVALID", "Only the primary entry point command of an application with Activities may have a handler"})
		case c.Handler != 0 && c.Handler != handlerApp && c.Handler != handlerDiscordLaunch:
			errs = append(errs, fieldErr{join(p, "handler"), "BASE_TYPE_CHOICES", "Value must be one of {1, 2}."})
		}
		checkName(&errs, join(p, "name"), c.Name, chat)
		key := fmt.Sprint(c.Type, "/", c.Name)
		if seen[key] {
			errs = append(errs, fieldErr{join(p, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", fmt.Sprintf("Application command names must be unique: %q", c.Name)})
		}
		seen[key] = true
		if c.NameLocalizations != nil {
			checkLocalizations(&errs, join(p, "name_localizations"), *c.NameLocalizations, func(path, v string) { checkName(&errs, path, v, chat) })
		}
		total := runeLen(c.Name)
		if chat {
			lenRange(&errs, join(p, "description"), c.Description, 1, 100)
			total += runeLen(c.Description)
			if c.DescriptionLocalizations != nil {
				checkLocalizations(&errs, join(p, "description_localizations"), *c.DescriptionLocalizations, func(path, v string) { lenRange(&errs, path, v, 1, 100) })
			}
			total += validateOptions(&errs, join(p, "options"), c.Options, 0)
		} else {
			if entry {
				maxLen(&errs, join(p, "description"), c.Description, 100)
			} else if c.Description != "" {
				errs = append(errs, fieldErr{join(p, "description"), "APPLICATION_COMMAND_DESCRIPTION_INVALID", "Only chat input commands may have a description"})
			}
			if len(c.Options) > 0 {
				errs = append(errs, fieldErr{join(p, "options"), "APPLICATION_COMMAND_OPTIONS_INVALID", "Only chat input commands may have options"})
			}
		}
		if total > 4000 {
			errs = append(errs, fieldErr{p, "APPLICATION_COMMAND_TOO_LARGE", "Command exceeds maximum size (4000)"})
		}
		if c.DefaultMemberPermissions != nil && *c.DefaultMemberPermissions < 0 {
			errs = append(errs, fieldErr{join(p, "default_member_permissions"), "NUMBER_TYPE_COERCE", "Value is not a valid permission set."})
		}
	}
	if count[discordgo.ChatApplicationCommand] > 100 {
		errs = append(errs, fieldErr{"", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length."})
	}
	if count[discordgo.UserApplicationCommand] > 5 || count[discordgo.MessageApplicationCommand] > 5 {
		errs = append(errs, fieldErr{"", "APPLICATION_COMMANDS_TOO_MANY", "Maximum number of user or message commands reached (5)"})
	}
	if count[primaryEntryPoint] > 1 {
		errs = append(errs, fieldErr{"", "APPLICATION_COMMANDS_TOO_MANY", "Maximum number of primary entry point commands reached (1)"})
	}
	return cmds, errs
}

// validateOptions checks the options of a chat command (depth 0), of a
// group (1) or of a subcommand; it returns their characters counted toward
// the command's 4000.
func validateOptions(errs *[]fieldErr, path string, opts []*discordgo.ApplicationCommandOption, depth int) int {
	if len(opts) > 25 {
		*errs = append(*errs, fieldErr{path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."})
	}
	total := 0
	names := map[string]bool{}
	subs, others := 0, 0
	optional := false
	for i, o := range opts {
		p := join(path, strconv.Itoa(i))
		if o == nil {
			*errs = append(*errs, fieldErr{p, "BASE_TYPE_REQUIRED", "This field is required"})
			continue
		}
		checkName(errs, join(p, "name"), o.Name, true)
		if names[o.Name] {
			*errs = append(*errs, fieldErr{join(p, "name"), "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", fmt.Sprintf("Option name %q is already used", o.Name)})
		}
		names[o.Name] = true
		lenRange(errs, join(p, "description"), o.Description, 1, 100)
		checkLocalizations(errs, join(p, "name_localizations"), o.NameLocalizations, func(path, v string) { checkName(errs, path, v, true) })
		checkLocalizations(errs, join(p, "description_localizations"), o.DescriptionLocalizations, func(path, v string) { lenRange(errs, path, v, 1, 100) })
		total += runeLen(o.Name) + runeLen(o.Description)
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
			subs++
			if o.Type == discordgo.ApplicationCommandOptionSubCommandGroup && depth > 0 ||
				o.Type == discordgo.ApplicationCommandOptionSubCommand && depth > 1 {
				*errs = append(*errs, fieldErr{join(p, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Sub-command groups and sub-commands cannot be nested this way"})
			}
			if depth == 1 && o.Type != discordgo.ApplicationCommandOptionSubCommand {
				*errs = append(*errs, fieldErr{join(p, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "A sub-command group may contain only sub-commands"})
			}
			if o.Required {
				*errs = append(*errs, fieldErr{join(p, "required"), "APPLICATION_COMMAND_OPTION_REQUIRED_INVALID", "Sub-commands cannot be required"})
			}
			next := 2
			if o.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
				next = 1
			}
			total += validateOptions(errs, join(p, "options"), o.Options, next)
		case discordgo.ApplicationCommandOptionString, discordgo.ApplicationCommandOptionInteger, discordgo.ApplicationCommandOptionBoolean,
			discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionChannel, discordgo.ApplicationCommandOptionRole,
			discordgo.ApplicationCommandOptionMentionable, discordgo.ApplicationCommandOptionNumber, discordgo.ApplicationCommandOptionAttachment:
			others++
			if depth == 1 {
				*errs = append(*errs, fieldErr{join(p, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "A sub-command group may contain only sub-commands"})
			}
			if len(o.Options) > 0 {
				*errs = append(*errs, fieldErr{join(p, "options"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Only sub-commands and groups have options"})
			}
			if o.Required && optional {
				*errs = append(*errs, fieldErr{join(p, "required"), "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options"})
			}
			if !o.Required {
				optional = true
			}
			total += validateChoices(errs, p, o)
		default:
			*errs = append(*errs, fieldErr{join(p, "type"), "BASE_TYPE_CHOICES", fmt.Sprintf("Value must be one of 1..11; got %d.", o.Type)})
		}
	}
	if subs > 0 && others > 0 {
		*errs = append(*errs, fieldErr{path, "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Options cannot mix sub-commands with other option types"})
	}
	return total
}

func validateChoices(errs *[]fieldErr, p string, o *discordgo.ApplicationCommandOption) int {
	total := 0
	numeric := o.Type == discordgo.ApplicationCommandOptionInteger || o.Type == discordgo.ApplicationCommandOptionNumber
	if len(o.Choices) > 0 {
		if !numeric && o.Type != discordgo.ApplicationCommandOptionString {
			*errs = append(*errs, fieldErr{join(p, "choices"), "APPLICATION_COMMAND_OPTION_CHOICES_INVALID", "Only string, integer and number options have choices"})
		}
		if o.Autocomplete {
			*errs = append(*errs, fieldErr{join(p, "autocomplete"), "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID", "Autocomplete and choices are mutually exclusive"})
		}
	}
	if len(o.Choices) > 25 {
		*errs = append(*errs, fieldErr{join(p, "choices"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."})
	}
	for j, ch := range o.Choices {
		cp := join(p, "choices."+strconv.Itoa(j))
		lenRange(errs, join(cp, "name"), ch.Name, 1, 100)
		checkLocalizations(errs, join(cp, "name_localizations"), ch.NameLocalizations, func(path, v string) { lenRange(errs, path, v, 1, 100) })
		total += runeLen(ch.Name)
		switch v := ch.Value.(type) {
		case string:
			if o.Type != discordgo.ApplicationCommandOptionString {
				*errs = append(*errs, fieldErr{join(cp, "value"), "BASE_TYPE_NUMBER", "Must be a number."})
			}
			lenRange(errs, join(cp, "value"), v, 1, 100)
			total += runeLen(v)
		case float64:
			if !numeric {
				*errs = append(*errs, fieldErr{join(cp, "value"), "BASE_TYPE_STRING", "Must be a string."})
			}
		default:
			*errs = append(*errs, fieldErr{join(cp, "value"), "BASE_TYPE_REQUIRED", "This field is required"})
		}
	}
	if !numeric && (o.MinValue != nil || o.MaxValue != 0) {
		*errs = append(*errs, fieldErr{join(p, "min_value"), "APPLICATION_COMMAND_OPTION_INVALID", "Only integer and number options have min_value and max_value"})
	}
	if o.Type != discordgo.ApplicationCommandOptionString && (o.MinLength != nil || o.MaxLength != 0) {
		*errs = append(*errs, fieldErr{join(p, "min_length"), "APPLICATION_COMMAND_OPTION_INVALID", "Only string options have min_length and max_length"})
	}
	if o.MinLength != nil && (*o.MinLength < 0 || *o.MinLength > 6000) {
		*errs = append(*errs, fieldErr{join(p, "min_length"), "NUMBER_TYPE_MAX", "Must be between 0 and 6000."})
	}
	if o.MaxLength != 0 && (o.MaxLength < 1 || o.MaxLength > 6000) {
		*errs = append(*errs, fieldErr{join(p, "max_length"), "NUMBER_TYPE_MAX", "Must be between 1 and 6000."})
	}
	return total
}
