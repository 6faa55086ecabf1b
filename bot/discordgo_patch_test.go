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
	}
}

func TestDecodeEventMatchesJSONDecoder(t *testing.T) {
	for _, f := range frames {
		compareFrame(t, []byte(f))
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
