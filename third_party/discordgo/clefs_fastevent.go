// This file is not part of discordgo v0.29.0: it is the patch of Les Clefs
// du Trésor (see PATCHES.md), written to be proposed upstream.

package discordgo

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// GatewayUnmarshaler is implemented by event values that decode and fully
// validate their JSON themselves. The gateway hands them the event's data
// directly; other values go through json.Unmarshal, which first validates
// the whole data, then makes every UnmarshalJSON method on the way validate
// its part again.
type GatewayUnmarshaler interface {
	UnmarshalGateway(data []byte) error
}

// GatewayPrefixUnmarshaler is a GatewayUnmarshaler that can also decode
// its data at the start of the rest of the frame and say where the data
// ends. DecodeEvent then decodes the data of such events while it reads the
// frame, in one pass, into Event.Struct; otherwise it first finds the data's
// end and the event's value decodes the data afterwards.
type GatewayPrefixUnmarshaler interface {
	GatewayUnmarshaler
	// UnmarshalGatewayPrefix decodes the JSON value at the start of b and
	// returns its length n, as UnmarshalGateway(b[:n]) would decode it.
	// On an error the gateway does without it: it delimits the data and
	// calls UnmarshalGateway.
	UnmarshalGatewayPrefix(b []byte) (n int, err error)
}

// prefixProviders holds the event types whose provider's values are
// GatewayPrefixUnmarshalers.
var prefixProviders = map[string]EventInterfaceProvider{}

// ReplaceEventProvider makes the gateway decode events of type p.Type()
// into the values p.New() returns, instead of discordgo's own. It affects
// every Session of the program; call it before opening any.
func ReplaceEventProvider(p EventInterfaceProvider) {
	registeredInterfaceProviders[p.Type()] = p
	delete(prefixProviders, p.Type())
	if _, ok := p.New().(GatewayPrefixUnmarshaler); ok {
		prefixProviders[p.Type()] = p
	}
}

// UnmarshalEventStruct sets e.Struct to the value p makes, decoded from
// e.RawData as the gateway does for a dispatch (see UnmarshalEvent). When
// DecodeEvent already decoded it (e.Struct is set), it does nothing.
func UnmarshalEventStruct(e *Event, p EventInterfaceProvider) error {
	if e.Struct != nil {
		return nil
	}
	e.Struct = p.New()
	return UnmarshalEvent(e.RawData, e.Struct)
}

// EventProvider returns the provider the gateway uses for events of type t,
// or nil.
func EventProvider(t string) EventInterfaceProvider {
	return registeredInterfaceProviders[t]
}

// DecodeEvent decodes a gateway payload (a text message) into an Event, as
// json.NewDecoder(bytes.NewReader(message)).Decode would, in one pass over
// the bytes when the payload has the usual shape. When the event's type
// comes before its data and its provider's values are
// GatewayPrefixUnmarshalers, the data is decoded in the same pass, into
// Event.Struct (see UnmarshalEventStruct).
func DecodeEvent(message []byte) (*Event, error) {
	e, err := decodeFrame(message)
	if err == errSlowFrame {
		e = nil
		err = json.NewDecoder(bytes.NewReader(message)).Decode(&e)
	}
	return e, err
}

// UnmarshalEvent decodes an event's data into v as the gateway does: a
// GatewayUnmarshaler decodes it itself, anything else goes through
// json.Unmarshal.
func UnmarshalEvent(data []byte, v interface{}) error {
	if u, ok := v.(GatewayUnmarshaler); ok {
		return u.UnmarshalGateway(data)
	}
	return json.Unmarshal(data, v)
}

var errSlowFrame = errors.New("frame needs encoding/json")

// decodeFrame reads a gateway payload, {"op":…,"s":…,"t":…,"d":…}, into an
// Event as json.Decoder would, without encoding/json's two passes over the
// data (one to find the end of the value, one to decode it, each a state
// machine step per byte). The data "d" is only delimited here, not
// validated: it is validated by whatever decodes it (json.Unmarshal, or a
// GatewayUnmarshaler). Anything unusual — other keys, escapes in keys or in
// the event type, numbers that are not plain integers, trailing bytes, a
// second "d" — returns errSlowFrame, and the caller uses json.Decoder.
func decodeFrame(b []byte) (*Event, error) {
	e := &Event{}
	p := skipSpace(b, 0)
	if p >= len(b) || b[p] != '{' {
		return nil, errSlowFrame
	}
	p = skipSpace(b, p+1)
	if p < len(b) && b[p] == '}' {
		return e, trailing(b, p+1)
	}
	for {
		if p >= len(b) || b[p] != '"' {
			return nil, errSlowFrame
		}
		end := p + 1
		for end < len(b) && b[end] != '"' && b[end] != '\\' {
			end++
		}
		if end >= len(b) || b[end] != '"' {
			return nil, errSlowFrame
		}
		key := string(b[p+1 : end])
		p = skipSpace(b, end+1)
		if p >= len(b) || b[p] != ':' {
			return nil, errSlowFrame
		}
		p = skipSpace(b, p+1)
		if p >= len(b) {
			return nil, errSlowFrame
		}
		var err error
		switch key {
		case "op":
			var n int64
			n, p, err = frameInt(b, p)
			e.Operation = int(n)
		case "s":
			e.Sequence, p, err = frameInt(b, p)
		case "t":
			if b[p] == 'n' {
				p, err = frameNull(b, p)
				break
			}
			if b[p] != '"' {
				return nil, errSlowFrame
			}
			end := p + 1
			for end < len(b) && b[end] >= 0x20 && b[end] < 0x80 && b[end] != '"' && b[end] != '\\' {
				end++
			}
			if end >= len(b) || b[end] != '"' {
				return nil, errSlowFrame
			}
			e.Type = string(b[p+1 : end])
			p = end + 1
		case "d":
			if e.RawData != nil {
				return nil, errSlowFrame // a duplicate: the first, unvalidated, would go unnoticed
			}
			if v, n := decodePrefix(e.Type, b[p:]); v != nil {
				e.Struct, e.RawData = v, json.RawMessage(b[p:p+n])
				p += n
				break
			}
			start := p
			if p, err = skipValue(b, p); err == nil && p == start {
				err = errSlowFrame
			} else if err == nil {
				if string(b[start:p]) == "null" {
					e.RawData = json.RawMessage("null")
				} else {
					e.RawData = json.RawMessage(b[start:p])
				}
			}
		default:
			return nil, errSlowFrame
		}
		if err != nil {
			return nil, err
		}
		p = skipSpace(b, p)
		if p >= len(b) {
			return nil, errSlowFrame
		}
		if b[p] == '}' {
			return e, trailing(b, p+1)
		}
		if b[p] != ',' {
			return nil, errSlowFrame
		}
		p = skipSpace(b, p+1)
	}
}

// decodePrefix decodes the data at the start of b with the event type's
// GatewayPrefixUnmarshaler, if it has one: the value and the data's length,
// or nil if the type has none or it failed.
func decodePrefix(typ string, b []byte) (interface{}, int) {
	p, ok := prefixProviders[typ]
	if !ok {
		return nil, 0
	}
	u, ok := p.New().(GatewayPrefixUnmarshaler)
	if !ok {
		return nil, 0
	}
	n, err := u.UnmarshalGatewayPrefix(b)
	if err != nil || n <= 0 || n > len(b) {
		return nil, 0
	}
	return u, n
}

func trailing(b []byte, p int) error {
	if skipSpace(b, p) != len(b) {
		return errSlowFrame
	}
	return nil
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}

// frameInt reads a plain integer (or null, as 0) for "op" and "s".
func frameInt(b []byte, p int) (int64, int, error) {
	if b[p] == 'n' {
		p, err := frameNull(b, p)
		return 0, p, err
	}
	start := p
	if b[p] == '-' {
		p++
	}
	for p < len(b) && b[p] >= '0' && b[p] <= '9' {
		p++
	}
	if p < len(b) && (b[p] == '.' || b[p] == 'e' || b[p] == 'E') {
		return 0, p, errSlowFrame
	}
	lit := string(b[start:p])
	if len(lit) > 1 && (lit[0] == '0' || lit[0] == '-' && lit[1] == '0' && len(lit) > 2) {
		return 0, p, errSlowFrame // leading zero: not JSON
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return 0, p, errSlowFrame
	}
	return n, p, nil
}

func frameNull(b []byte, p int) (int, error) {
	if len(b)-p < 4 || string(b[p:p+4]) != "null" {
		return p, errSlowFrame
	}
	return p + 4, nil
}

// skipValue returns the end of the JSON value at p: it follows strings
// (with their escapes) and nesting, and leaves validation to the decoder
// of the data.
func skipValue(b []byte, p int) (int, error) {
	depth := 0
	for p < len(b) {
		c := b[p]
		switch c {
		case '"':
			p++
			for p < len(b) && b[p] != '"' {
				if b[p] == '\\' {
					p++
				}
				p++
			}
			if p >= len(b) {
				return p, errSlowFrame
			}
			p++
		case '{', '[':
			depth++
			p++
		case '}', ']':
			if depth == 0 {
				return p, nil
			}
			depth--
			p++
		case ',':
			if depth == 0 {
				return p, nil
			}
			p++
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return p, nil
			}
			p++
		default:
			p++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return p, nil
		}
	}
	if depth != 0 {
		return p, errSlowFrame
	}
	return p, nil
}
