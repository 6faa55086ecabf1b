package loadtest

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/bot"
)

// appendFrame appends the gateway frame that carries the interaction
// payload d, as Discord sends it: a dispatch (op 0) of INTERACTION_CREATE.
func appendFrame(b []byte, seq uint64, d []byte) []byte {
	b = append(b, `{"op":0,"s":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"t":"INTERACTION_CREATE","d":`...)
	b = append(b, d...)
	return append(b, '}')
}

// decodeFrame does with a dispatch frame what the bot's discordgo does in
// Session.onEvent (third_party/discordgo/wsapi.go): discordgo.DecodeEvent
// reads the frame into a discordgo.Event, decoding its data on the way
// into the value of the event type's provider, bot.InteractionEvent
// (bot/gateway.go); discordgo.UnmarshalEventStruct decodes it afterwards
// when that could not be done. The cost measured is the bot's.
func decodeFrame(frame []byte) (*discordgo.Interaction, error) {
	e, err := discordgo.DecodeEvent(frame)
	if err != nil {
		return nil, fmt.Errorf("decode gateway frame: %w", err)
	}
	if e == nil || e.Operation != 0 || e.Type != "INTERACTION_CREATE" {
		return nil, errors.New("not an INTERACTION_CREATE dispatch")
	}
	if err := discordgo.UnmarshalEventStruct(e, discordgo.EventProvider(e.Type)); err != nil {
		return nil, fmt.Errorf("decode interaction: %w", err)
	}
	ev, ok := e.Struct.(*bot.InteractionEvent)
	if !ok {
		return nil, fmt.Errorf("INTERACTION_CREATE decodes into %T, not bot.InteractionEvent", e.Struct)
	}
	if ev.Err != nil {
		return nil, fmt.Errorf("decode interaction: %w", ev.Err)
	}
	return ev.Interaction, nil
}
