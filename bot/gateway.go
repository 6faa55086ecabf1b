package bot

import (
	"encoding/json"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/commands"
	"github.com/lesclefsdutresor/clefs/wire"
)

// interactionCreate is the gateway event that carries interactions.
const interactionCreate = "INTERACTION_CREATE"

// discordgo decodes each gateway event into the value its provider for the
// event type makes. For INTERACTION_CREATE that is
// *discordgo.InteractionCreate, whose nested UnmarshalJSON methods make
// encoding/json validate the same bytes again at every level: 57 µs for a
// slash command and 230 µs for a click (which carries its message) on the
// project's machine, against 5 and 22 µs with wire.DecodeInteraction
// (`go test -bench DecodeInteraction ./wire`). The bot's copy of discordgo
// (third_party/discordgo, see its PATCHES.md) lets a program replace a
// provider and hands the event's bytes straight to a value that decodes
// them itself, in the same pass as the frame around them; the bot replaces
// the INTERACTION_CREATE provider once, when the program starts, and reads
// the decoded interaction in its raw event handler (onRawEvent).
//
// Importing this package therefore changes every discordgo session in the
// program: handlers of *discordgo.InteractionCreate no longer fire; raw
// *discordgo.Event handlers get an *InteractionEvent in Event.Struct.
func init() {
	discordgo.ReplaceEventProvider(interactionProvider{})
}

// InteractionEvent is an INTERACTION_CREATE event decoded by
// wire.DecodeInteraction: the Interaction, or the error that kept it from
// being decoded.
type InteractionEvent struct {
	Interaction *discordgo.Interaction
	Err         error
}

// decoder skips the message of the clicks whose handlers never read it
// (commands.MessageUnused: a card's rows, Auto, "Play again", the chest): it is most
// of a click's payload and half of its decoding time.
var decoder = wire.Decoder{KeepMessage: func(i *discordgo.Interaction) bool { return !commands.MessageUnused(i) }}

// UnmarshalGateway decodes the event's data (discordgo.GatewayUnmarshaler).
// It never fails: a decoding error is kept in Err for the handler, which
// answers with an apology, rather than logged by discordgo.
func (e *InteractionEvent) UnmarshalGateway(data []byte) error {
	e.Interaction, e.Err = decoder.Decode(data)
	return nil
}

// UnmarshalGatewayPrefix decodes the event's data at the start of b, the
// rest of the gateway frame (discordgo.GatewayPrefixUnmarshaler): discordgo
// reads the frame and the interaction in one pass. On an error it returns
// it and discordgo calls UnmarshalGateway, which keeps it in Err.
func (e *InteractionEvent) UnmarshalGatewayPrefix(b []byte) (int, error) {
	i, n, err := decoder.DecodePrefix(b)
	if err != nil {
		return 0, err
	}
	e.Interaction, e.Err = i, nil
	return n, nil
}

// UnmarshalJSON is UnmarshalGateway, for json.Unmarshal.
func (e *InteractionEvent) UnmarshalJSON(data []byte) error { return e.UnmarshalGateway(data) }

var (
	_ discordgo.GatewayPrefixUnmarshaler = (*InteractionEvent)(nil)
	_ json.Unmarshaler                   = (*InteractionEvent)(nil)
)

// interactionProvider is discordgo's EventInterfaceProvider for
// INTERACTION_CREATE, with InteractionEvent as the decoded value.
type interactionProvider struct{}

func (interactionProvider) Type() string     { return interactionCreate }
func (interactionProvider) New() interface{} { return new(InteractionEvent) }
