package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/schema"
)

// DumpVersion is the version of the dumps WriteDump writes. ReadDump reads
// it and 4, and refuses older versions, naming the release that converts
// them (docs/STORAGE.md §6).
const DumpVersion = 5

// Dumper is implemented by stores that can export and import everything
// they hold. The export and import subcommands use it; exporting from the
// embedded store and importing into Redis is the documented way to move up.
type Dumper interface {
	// ExportPlayers calls fn for every player, ordered by guild then user,
	// with the history and the reveals it keeps. It stops at fn's first
	// error. A player whose record or lines do not decode is given with
	// only its ID and Damaged, and the export goes on.
	ExportPlayers(ctx context.Context, fn func(DecodedPlayer) error) error
	// ExportGuilds calls fn for every guild that has settings or audit
	// entries, ordered by guild.
	ExportGuilds(ctx context.Context, fn func(DecodedGuild) error) error
	// Import adds every player and guild of d (validated by ReadDump),
	// all or nothing, with their leaderboard index. A player or guild
	// already in the store is ErrDuplicate, naming the record. It is meant
	// for an empty store, and must not run while the bot plays.
	Import(ctx context.Context, d *DecodedDump) error
	// CountPlayers returns how many players ExportPlayers would give,
	// without reading their records in full.
	CountPlayers(ctx context.Context) (int, error)
}

// DecodedDump is a validated dump, ready for a store to write.
type DecodedDump struct {
	Version int // the version it was read from (ReadDump)
	Players []DecodedPlayer
	Guilds  []DecodedGuild
}

// DecodedPlayer is one player with its history and reveals, oldest first.
type DecodedPlayer struct {
	ID      PlayerID
	Player  game.Player
	History []game.Entry
	Reveals game.Reveals
	// Damaged, when not nil, says the player's record or a line beside it
	// does not decode (Dumper.ExportPlayers); nothing else is set.
	Damaged *DamagedError
}

// ExportedPlayer is the player id as a store's ExportPlayers gives it: p
// with its history (read newest first, given oldest first) and reveals;
// or only its ID and Damaged when err, from reading them, holds a
// *DamagedError.
func ExportedPlayer(id PlayerID, p game.Player, hist []game.Entry, rs game.Reveals, err error) DecodedPlayer {
	if de, ok := errors.AsType[*DamagedError](err); ok {
		return DecodedPlayer{ID: id, Damaged: de}
	}
	slices.Reverse(hist)
	return DecodedPlayer{ID: id, Player: p, History: hist, Reveals: rs}
}

// DecodedGuild is one guild: its settings (nil if never set) and its
// moderator log, oldest first.
type DecodedGuild struct {
	Guild    uint64
	Settings *game.Settings
	Audit    []game.AuditEntry
}

// ExportDump reads everything from d.
func ExportDump(ctx context.Context, d Dumper) (*DecodedDump, error) {
	out := &DecodedDump{Players: []DecodedPlayer{}, Guilds: []DecodedGuild{}}
	if err := d.ExportPlayers(ctx, func(p DecodedPlayer) error {
		if p.Damaged != nil {
			return p.Damaged
		}
		out.Players = append(out.Players, p)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("export players: %w", err)
	}
	if err := d.ExportGuilds(ctx, func(g DecodedGuild) error {
		out.Guilds = append(out.Guilds, g)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("export guilds: %w", err)
	}
	return out, nil
}

// EncodeDump writes d as a dump of version DumpVersion, indented JSON. The
// output is deterministic: the same contents give the same bytes.
func EncodeDump(w io.Writer, d *DecodedDump) error {
	v := struct { // docs/STORAGE.md
		Version int                 `json:"version"`
		Players []schema.DumpPlayer `json:"players"`
		Guilds  []schema.DumpGuild  `json:"guilds"`
	}{DumpVersion, make([]schema.DumpPlayer, 0, len(d.Players)), make([]schema.DumpGuild, 0, len(d.Guilds))}
	for _, p := range d.Players {
		v.Players = append(v.Players, schema.NewDumpPlayer(p.ID.Guild, p.ID.User, p.Player, p.History, p.Reveals))
	}
	for _, g := range d.Guilds {
		v.Guilds = append(v.Guilds, schema.NewDumpGuild(g.Guild, g.Settings, g.Audit))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write dump: %w", err)
	}
	return nil
}

// WriteDump writes everything in d to w (EncodeDump).
func WriteDump(ctx context.Context, w io.Writer, d Dumper) error {
	dump, err := ExportDump(ctx, d)
	if err != nil {
		return err
	}
	return EncodeDump(w, dump)
}

// ReadDump reads and validates a dump of version 4 or 5, strictly: another
// version, an unknown field, trailing data or a value out of bounds is
// ErrInvalid, naming the record and the field; a player or guild present
// twice is ErrDuplicate. It holds the whole dump; to go through a large one
// a player at a time, use StreamDump, which reads it alike.
func ReadDump(r io.Reader) (*DecodedDump, error) {
	out := DecodedDump{Players: []DecodedPlayer{}, Guilds: []DecodedGuild{}}
	v, err := StreamDump(r, func(p DecodedPlayer) error {
		out.Players = append(out.Players, p)
		return nil
	}, func(g DecodedGuild) error {
		out.Guilds = append(out.Guilds, g)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Version = v
	return &out, nil
}
