package bot

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// The bot's discordgo (third_party/discordgo) reads gateway payloads with
// DecodeEvent, in one pass, where discordgo v0.29 used json.Decoder. These
// tests hold DecodeEvent to json.Decoder's result.

var frames = []string{
	`{"op":0,"s":42,"t":"INTERACTION_CREATE","d":{"id":"1","type":3,"data":{"custom_id":"a\"b\\c}"},"x":[1,{"y":"]"}]}}`,
	`{"t":"READY","s":1,"op":0,"d":{"v":10,"user":{"id":"1"},"session_id":"s","resume_gateway_url":"ws://x"}}`,
	`{"op":10,"d":{"heartbeat_interval":41250},"s":null,"t":null}`,
	`{"op":11}`,
	`{"op":7,"d":null,"s":null,"t":null}`,
	`{"op":9,"d":false}`,
	` { "op" : 0 , "s" : 3 , "t" : "MESSAGE_CREATE" , "d" : { "content" : "x" } } `,
	`{"op":0,"s":5,"t":"T","d":"a string"}`,
	`{"op":0,"s":5,"t":"T","d":-12.5e3}`,
	`{"OP":1,"d":{}}`,                         // case-insensitive key: json.Decoder's way
	`{"op":1,"d":{},"extra":true}`,            // unknown key
	`{"op":1,"t":"A\u0042"}`,                  // escape in the type
	`{"op":1.0}`,                              // not an integer: an error either way
	`{"op":01}`,                               // not JSON
	`{"op":1}{"op":2}`,                        // json.Decoder reads the first value
	`{"op":1,"d":{"a":1}`,                     // truncated
	`{"op":1,"d":}`,                           // no value
	`{"op":-0,"s":-1,"d":[]}`,                 //
	`[]`,                                      //
	`null`,                                    //
	``,                                        //
	`{"op":0,"s":9223372036854775808}`,        // overflows int64
	`{"op":0,"d":{"k":"\ud83d\ude00"},"d":1}`, // duplicate key: the last wins
	// Interactions: decoded with the frame when "t" comes first.
	`{"t":"INTERACTION_CREATE","s":7,"op":0,"d":{"id":"5","application_id":"1","type":3,"token":"tok","guild_id":"2","data":{"custom_id":"v1:auto:3:1","component_type":2},"member":{"user":{"id":"3"},"permissions":"0"}}}`,
	`{"t":"INTERACTION_CREATE","s":7,"op":0,"d":{"id":"5","type":3,"message":{"id":"9","components":[]},"data":{"custom_id":"v1:rg:3:1700000"}} }`,
	`{"op":0,"d":{"id":"5","type":2,"data":{"name":"play"}},"s":7,"t":"INTERACTION_CREATE"}`, // "t" last: decoded afterwards
	`{"t":"INTERACTION_CREATE","op":0,"d":{"id":5}}`,                  // a bad field: decoded afterwards, with its error
	`{"t":"INTERACTION_CREATE","op":0,"d":{"id":"5",}}`,               // not JSON
	`{"t":"INTERACTION_CREATE","op":0,"d":{"id":"5"},"x":1}`,          // unknown key after the data
	`{"t":"INTERACTION_CREATE","op":0,"d":{"id":"5"},"d":{"id":"6"}}`, // duplicate data
	`{"t":"INTERACTION_CREATE","op":0,"d":null}`,                      //
	`{"t":"INTERACTION_CREATE","op":0,"d":{"id":"5"}`,                 // truncated
}

// compareFrame checks DecodeEvent against json.Decoder on msg. When the
// decoder accepts msg, DecodeEvent must return the same event. When it
// refuses msg, DecodeEvent may accept it only if the data itself is not
// valid JSON: DecodeEvent delimits the data without validating it, and
// leaves that to the data's decoder, which refuses it.
func compareFrame(t *testing.T, msg []byte) {
	t.Helper()
	var want *discordgo.Event
	wantErr := json.NewDecoder(bytes.NewReader(msg)).Decode(&want)
	got, err := discordgo.DecodeEvent(msg)
	switch {
	case wantErr == nil && err != nil:
		t.Fatalf("%q: json.Decoder reads it, DecodeEvent: %v", msg, err)
	case wantErr != nil && err == nil:
		if got != nil && json.Valid(got.RawData) {
			t.Fatalf("%q: json.Decoder refuses it (%v), DecodeEvent reads valid data %+v", msg, wantErr, got)
		}
	case wantErr == nil:
		if want == nil && got == nil {
			return
		}
		if want == nil || got == nil || want.Operation != got.Operation || want.Sequence != got.Sequence ||
			want.Type != got.Type || !bytes.Equal(want.RawData, got.RawData) {
			t.Fatalf("%q:\nDecodeEvent %+v\njson.Decoder %+v", msg, got, want)
		}
		// The data decoded with the frame, if it was, is what decoding the
		// data afterwards gives, as discordgo's onEvent does otherwise.
		p := discordgo.EventProvider(got.Type)
		if p == nil {
			return
		}
		after := &discordgo.Event{Type: want.Type, RawData: want.RawData}
		afterErr := discordgo.UnmarshalEventStruct(after, p)
		if got.Struct == nil {
			return
		}
		gotErr := discordgo.UnmarshalEventStruct(got, p) // a no-op: already decoded
		if afterErr != nil || gotErr != nil || !reflect.DeepEqual(got.Struct, after.Struct) {
			t.Fatalf("%q: decoded with the frame %+v (%v), afterwards %+v (%v)", msg, got.Struct, gotErr, after.Struct, afterErr)
		}
	}
}

func TestDecodeEventMatchesJSONDecoder(t *testing.T) {
	for _, f := range frames {
		compareFrame(t, []byte(f))
	}
}

// TestDecodeEventDecodesInteractions: an interaction whose frame gives its
// type first is decoded in the frame's pass, one that cannot be decoded is
// left to UnmarshalEventStruct, which keeps its error for the handler.
func TestDecodeEventDecodesInteractions(t *testing.T) {
	for k, c := range []struct {
		frame   string
		decoded bool // in DecodeEvent
		id      string
	}{
		{frames[len(frames)-9], true, "5"},
		{frames[len(frames)-8], true, "5"},
		{frames[len(frames)-7], false, "5"}, // "t" after "d"
		{frames[len(frames)-6], false, ""},  // "id" is a number
	} {
		e, err := discordgo.DecodeEvent([]byte(c.frame))
		if err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		if (e.Struct != nil) != c.decoded {
			t.Errorf("frame %d: decoded with the frame: %v, want %v", k, e.Struct != nil, c.decoded)
		}
		if err := discordgo.UnmarshalEventStruct(e, discordgo.EventProvider(e.Type)); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		ev := e.Struct.(*InteractionEvent)
		if c.id == "" {
			if ev.Err == nil {
				t.Errorf("frame %d: decoded %+v, want an error kept", k, ev.Interaction)
			}
		} else if ev.Err != nil || ev.Interaction.ID != c.id {
			t.Errorf("frame %d: %+v, %v", k, ev.Interaction, ev.Err)
		}
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, fr := range frames {
		f.Add([]byte(fr))
	}
	f.Fuzz(func(t *testing.T, msg []byte) { compareFrame(t, msg) })
}

// TestUnmarshalEventFallsBack checks that values other than
// GatewayUnmarshalers still go through json.Unmarshal, validation included.
func TestUnmarshalEventFallsBack(t *testing.T) {
	var r discordgo.Ready
	if err := discordgo.UnmarshalEvent([]byte(`{"session_id":"s","user":{"id":"1"}}`), &r); err != nil || r.SessionID != "s" || r.User.ID != "1" {
		t.Fatalf("READY: %+v, %v", r, err)
	}
	if err := discordgo.UnmarshalEvent([]byte(`{"session_id":"s",}`), &r); err == nil {
		t.Fatal("invalid JSON accepted")
	}
	if !reflect.DeepEqual(discordgo.EventProvider("READY").New(), new(discordgo.Ready)) {
		t.Fatal("READY provider replaced")
	}
}
