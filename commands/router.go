package commands

import "github.com/bwmarrin/discordgo"

// router is the route table, after disgo's handler.Mux: commands by name,
// buttons by the kind of their custom ID, and the entry point, each
// handler wrapped once in the delivery chain (delivery.go). Registration
// panics on a duplicate, or a kind routed and laid out not both.
type router struct {
	wrap     func(handlerFunc) handlerFunc
	commands map[string]route
	buttons  map[buttonKind]route
	launch   handlerFunc // the entry-point command's, whatever its name
	defs     []*discordgo.ApplicationCommand
}

type route struct {
	h      handlerFunc // wrapped in the delivery chain
	def    *discordgo.ApplicationCommand
	public bool            // a slow command's deferred response is public
	subs   map[string]bool // the subcommands: the metrics' labels, which a forged name cannot grow
	metric string          // a button's kind in the logs and metrics (layout.metric)
}

func (r *router) command(c *command) {
	if _, ok := r.commands[c.def.Name]; ok {
		panic("commands: duplicate command " + c.def.Name)
	}
	subs := map[string]bool{}
	for _, o := range c.def.Options {
		if o.Type == discordgo.ApplicationCommandOptionSubCommand {
			subs[o.Name] = true
		}
	}
	r.commands[c.def.Name] = route{h: r.wrap(c.h), def: c.def, public: c.public, subs: subs}
	r.defs = append(r.defs, c.def)
}

// routeButtons routes each kind of the custom-ID table to its handler in
// hs; it panics if a kind has no handler, or hs one the table lacks.
func (r *router) routeButtons(hs map[buttonKind]handlerFunc) {
	for _, l := range layouts {
		if hs[l.kind] == nil {
			panic("commands: no route for custom IDs " + l.version + ":" + l.name)
		}
		r.buttons[l.kind] = route{h: r.wrap(hs[l.kind]), metric: l.metric}
	}
	if len(hs) != len(layouts) {
		panic("commands: a routed button kind has no custom-ID layout")
	}
}

// route finds the handler of the interaction and fills rq. It refuses what
// does not come from a guild member, an unknown command, a forged custom
// ID (not a button of its message), and a button pressed by another than
// its owner.
func (r *router) route(rq *request) (handlerFunc, error) {
	i := rq.i
	var h handlerFunc
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		d, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
		if p, _ := i.Data.(*discordgo.ApplicationCommandInteractionData); p != nil {
			d, ok = *p, true
		}
		if !ok {
			return nil, userErr("err_unknown_command", nil)
		}
		c, ok := r.commands[d.Name]
		if d.CommandType == PrimaryEntryPoint { // whatever the operator named it
			c, ok = route{h: r.launch}, true
			d.Name = "launch" // the metrics' label
		}
		if !ok {
			return nil, userErr("err_unknown_command", nil)
		}
		rq.kind, rq.data, rq.def, rq.public, h = d.Name, &d, c.def, c.public, c.h
		if len(c.subs) > 0 {
			rq.kind = d.Name + " unknown"
			if len(d.Options) == 1 && d.Options[0] != nil && c.subs[d.Options[0].Name] {
				rq.kind = d.Name + " " + d.Options[0].Name
			}
		}
	case discordgo.InteractionMessageComponent:
		// A button acts only on the card it sits on, and only a button
		// (a select menu carrying a custom ID of the bot's is forged).
		var from discordgo.ComponentType
		rq.customID, from = componentCustomID(i)
		rq.kind = "button unknown"
		c, ok := parseCustomID(rq.customID)
		if !ok || from != discordgo.ButtonComponent || !messageHasButton(i.Message, rq.customID) {
			return nil, userErr("err_stale_button", nil)
		}
		b := r.buttons[c.kind]
		rq.kind, rq.button, h = b.metric, c, b.h
	default:
		return nil, userErr("err_unknown_command", nil)
	}
	if i.Member == nil || i.Member.User == nil {
		return nil, userErr("err_guild_only", nil)
	}
	var guildOK, userOK bool
	rq.guild, guildOK = parseSnowflake(i.GuildID)
	rq.user, userOK = parseSnowflake(i.Member.User.ID)
	if !guildOK || !userOK {
		return nil, userErr("err_guild_only", nil)
	}
	rq.perms = i.Member.Permissions
	if u := rq.button.user; i.Type == discordgo.InteractionMessageComponent && u != rq.user {
		return nil, userErr("err_not_yours", map[string]any{"Owner": mention(u)})
	}
	return h, nil
}
