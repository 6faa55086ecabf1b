package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// StreamDump reads and validates a dump of version 4 or 5, as ReadDump
// does, and hands each player to player and each guild to guild (either
// may be nil) as soon as it is read and checked, in the dump's order. It
// returns the dump's version.
//
// It reads one player at a time: the memory it takes is that of the
// largest player, plus the IDs seen so far (to report a player or a guild
// present twice), plus the whole dump's bytes if its version is not its
// first field (EncodeDump writes it first).
//
// The errors are ReadDump's: ErrInvalid or ErrDuplicate naming the record.
// An error of player or guild stops the read and is returned as is.
// Because records are handed over as they come, an error found further in
// the dump (a syntax error, a duplicate) comes after the records before
// it were handed over: a caller that must be all or nothing, such as an
// import, keeps them until StreamDump returns nil (ReadDump does).
func StreamDump(r io.Reader, player func(DecodedPlayer) error, guild func(DecodedGuild) error) (version int, err error) {
	if player == nil {
		player = func(DecodedPlayer) error { return nil }
	}
	if guild == nil {
		guild = func(DecodedGuild) error { return nil }
	}
	head := &replayReader{r: r, keep: true}
	s := newDumpStream(json.NewDecoder(head), player, guild)
	if v, ok := streamHead(s.dec); ok && checkVersion(v) == nil {
		head.keep, head.read = false, nil
		return v, s.rest(map[string]bool{"version": true})
	}
	data, err := head.all()
	if err != nil {
		return 0, fmt.Errorf("read dump: %w", err)
	}
	return readWhole(data, player, guild)
}

// checkVersion refuses a dump version other than 4 and 5. Versions 1 to 3
// (0.2.0 and before) were read by 0.3.0, whose export writes version 4.
func checkVersion(v int) error {
	switch {
	case v >= 1 && v <= 3:
		return fmt.Errorf("%w: dump version %d, which this release no longer reads: convert it with clefs 0.3.0 first "+
			"(clefs import -data new.db DUMP, then clefs export -data new.db -o DUMP4)", ErrInvalid, v)
	case v < 4 || v > DumpVersion:
		return fmt.Errorf("%w: dump version %d, want 4 to %d", ErrInvalid, v, DumpVersion)
	}
	return nil
}

// streamHead reads the start of a dump written by EncodeDump: '{', then
// the field "version" and its value. ok is false for anything else, which
// readWhole then reads (and reports on).
func streamHead(dec *json.Decoder) (version int, ok bool) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	if t, err := dec.Token(); err != nil || t != "version" {
		return 0, false
	}
	if err := dec.Decode(&version); err != nil {
		return 0, false
	}
	return version, true
}

// replayReader reads r, keeping what it read while keep is set, so that a
// dump whose start streamHead does not stream can be read again whole.
type replayReader struct {
	r    io.Reader
	keep bool
	read []byte
}

func (rr *replayReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	if rr.keep {
		rr.read = append(rr.read, p[:n]...)
	}
	return n, err
}

// all returns everything: what was read, then the rest of r.
func (rr *replayReader) all() ([]byte, error) {
	rest, err := io.ReadAll(rr.r)
	return append(rr.read, rest...), err
}

// readWhole reads a dump held in data whose version is not its first
// field, or that is not a dump: the version first, then the same
// record-by-record reader over the bytes, the version among the fields.
func readWhole(data []byte, player func(DecodedPlayer) error, guild func(DecodedGuild) error) (int, error) {
	var head struct {
		Version int             `json:"version"`
		Public  json.RawMessage `json:"v"` // a public export's version
	}
	// The first JSON value only: the stream below says what follows it.
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&head); err != nil {
		return 0, fmt.Errorf("%w: read dump: %v", ErrInvalid, describeJSONError(err))
	}
	if head.Version == 0 && head.Public != nil {
		return 0, fmt.Errorf("%w: this is a player's public export (/fairness export, clefs export -public), not a dump: it holds no secret seed and cannot be imported; clefs verify -export checks it", ErrInvalid)
	}
	if err := checkVersion(head.Version); err != nil {
		return 0, err
	}
	s := newDumpStream(json.NewDecoder(bytes.NewReader(data)), player, guild)
	if _, err := s.token(); err != nil { // the '{' the decoding of head found
		return 0, err
	}
	return head.Version, s.rest(map[string]bool{})
}

// dumpStream reads the rest of a dump after its version, one record at a
// time, keeping only the IDs seen, to report one present twice.
type dumpStream struct {
	dec     *json.Decoder
	player  func(DecodedPlayer) error
	guild   func(DecodedGuild) error
	players map[PlayerID]int // the index of each player seen
	guilds  map[uint64]int
}

func newDumpStream(dec *json.Decoder, player func(DecodedPlayer) error, guild func(DecodedGuild) error) *dumpStream {
	dec.DisallowUnknownFields()
	return &dumpStream{dec: dec, player: player, guild: guild, players: map[PlayerID]int{}, guilds: map[uint64]int{}}
}

func (s *dumpStream) checkPlayer(i int, dp schema.DumpPlayer) (DecodedPlayer, error) {
	name := fmt.Sprintf("players[%d] (guild %s, user %s)", i, dp.Guild, dp.User)
	g, u, p, h, rs, err := dp.Game(name)
	if err != nil {
		return DecodedPlayer{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	id := PlayerID{Guild: g, User: u}
	if j, ok := s.players[id]; ok {
		return DecodedPlayer{}, fmt.Errorf("%s: %w: same player as players[%d]", name, ErrDuplicate, j)
	}
	s.players[id] = i
	return DecodedPlayer{ID: id, Player: p, History: h, Reveals: rs}, nil
}

func (s *dumpStream) checkGuild(i int, dg schema.DumpGuild) (DecodedGuild, error) {
	name := fmt.Sprintf("guilds[%d] (guild %s)", i, dg.Guild)
	g, set, audit, err := dg.Game(name)
	if err != nil {
		return DecodedGuild{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if len(audit) > AuditLimit {
		return DecodedGuild{}, fmt.Errorf("%s: %w: %d audit entries, at most %d", name, ErrInvalid, len(audit), AuditLimit)
	}
	if j, ok := s.guilds[g]; ok {
		return DecodedGuild{}, fmt.Errorf("%s: %w: same guild as guilds[%d]", name, ErrDuplicate, j)
	}
	s.guilds[g] = i
	return DecodedGuild{Guild: g, Settings: set, Audit: audit}, nil
}

// rest reads the fields of the dump's object not yet seen, in any order,
// the end of the object, and checks that nothing follows it. A version
// among them must be DumpVersion.
func (s *dumpStream) rest(seen map[string]bool) error {
	for s.dec.More() {
		t, err := s.token()
		if err != nil {
			return err
		}
		key, _ := t.(string) // More and the decoder's syntax check leave only a key here
		if seen[key] {
			return fmt.Errorf("%w: read dump: field %q twice", ErrInvalid, key)
		}
		seen[key] = true
		switch key {
		case "version":
			var v int
			if err := s.dec.Decode(&v); err != nil {
				return fmt.Errorf("%w: read dump: version: %v", ErrInvalid, describeJSONError(err))
			}
			if err := checkVersion(v); err != nil {
				return err
			}
		case "players":
			// Each player is decoded into the lines and reveals of the one
			// before, zeroed, which saves growing them afresh; nothing
			// decoded refers to them (DumpPlayer.Game copies).
			var lines []schema.Line
			var reveals []schema.Reveal
			err = s.array("players", func(i int) error {
				clear(lines[:cap(lines)])
				clear(reveals[:cap(reveals)])
				dp := schema.DumpPlayer{History: lines[:0], Reveals: reveals[:0]}
				if err := s.dec.Decode(&dp); err != nil {
					return fmt.Errorf("%w: read dump: players[%d]: %v", ErrInvalid, i, describeJSONError(err))
				}
				lines, reveals = dp.History, dp.Reveals
				p, err := s.checkPlayer(i, dp)
				if err != nil {
					return err
				}
				return s.player(p)
			})
		case "guilds":
			err = s.array("guilds", func(i int) error {
				var dg schema.DumpGuild
				if err := s.dec.Decode(&dg); err != nil {
					return fmt.Errorf("%w: read dump: guilds[%d]: %v", ErrInvalid, i, describeJSONError(err))
				}
				g, err := s.checkGuild(i, dg)
				if err != nil {
					return err
				}
				return s.guild(g)
			})
		default:
			err = fmt.Errorf("%w: read dump: json: unknown field %q", ErrInvalid, key)
		}
		if err != nil {
			return err
		}
	}
	if _, err := s.token(); err != nil { // the closing '}', More said
		return err
	}
	if _, err := s.dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: read dump: trailing data after the JSON object", ErrInvalid)
	}
	return nil
}

// array reads field's value, null or an array, calling each for each of
// its elements, which it must decode.
func (s *dumpStream) array(field string, each func(i int) error) error {
	t, err := s.token()
	if err != nil {
		return err
	}
	switch t {
	case nil:
		return nil
	case json.Delim('['):
	default:
		return fmt.Errorf("%w: read dump: field %q: want an array, not %v", ErrInvalid, field, t)
	}
	for i := 0; s.dec.More(); i++ {
		if err := each(i); err != nil {
			return err
		}
	}
	_, err = s.token() // the closing ']', More said
	return err
}

// token is the next token, an end of input within the dump being an error.
func (s *dumpStream) token() (json.Token, error) {
	t, err := s.dec.Token()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read dump: %v", ErrInvalid, describeJSONError(err))
	}
	return t, nil
}

// describeJSONError says where in the dump a decoding error is.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("field %s: a JSON %s does not fit, at byte %d", te.Field, te.Value, te.Offset)
	}
	return err.Error()
}
