package schema

import (
	"strconv"

	"github.com/lesclefsdutresor/clefs/game"
)

// PublicExportVersion is the version of the public export format
// (PublicExport.Version): 2 since reset lines record the ticket they threw
// away (d). Version 1 reads as well: the same lines without d.
const PublicExportVersion = 2

// PublicExport is one player's fairness data without any secret: the
// history lines kept and the server seeds revealed, oldest first; nothing
// the player was not already shown (docs/STORAGE.md, "Public export").
type PublicExport struct {
	Version int      `json:"v"`     // PublicExportVersion
	Guild   string   `json:"guild"` // snowflake, decimal
	User    string   `json:"user"`  // snowflake, decimal
	History []Line   `json:"h"`     // oldest first, at most game.MaxHistory; [] when none
	Reveals []Reveal `json:"r"`     // oldest first, at most game.MaxReveals; [] when none
}

// NewPublicExport returns the public export of the player of guild and
// user, from its history and reveals, oldest first.
func NewPublicExport(guild, user uint64, hist []game.Entry, reveals game.Reveals) PublicExport {
	x := PublicExport{
		Version: PublicExportVersion,
		Guild:   strconv.FormatUint(guild, 10), User: strconv.FormatUint(user, 10),
		History: make([]Line, 0, len(hist)), Reveals: make([]Reveal, 0, len(reveals)),
	}
	for _, e := range hist {
		x.History = append(x.History, FromEntry(e))
	}
	for _, r := range reveals {
		x.Reveals = append(x.Reveals, FromReveal(r))
	}
	return x
}

// PublicPlayer is a public export read and checked.
type PublicPlayer struct {
	Guild, User uint64
	History     []game.Entry // oldest first
	Reveals     game.Reveals // oldest first
}

// DecodePublicExport reads a public export, strictly; record names it in
// errors. It checks each line, each reveal, and the reveals' chain.
func DecodePublicExport(record string, b []byte) (PublicPlayer, error) {
	var x PublicExport
	if err := decode(record, b, &x); err != nil {
		return PublicPlayer{}, err
	}
	if x.Version < 1 || x.Version > PublicExportVersion {
		return PublicPlayer{}, fieldErr(record, "v", "version %d, want 1 to %d", x.Version, PublicExportVersion)
	}
	var out PublicPlayer
	var err error
	if out.Guild, err = Snowflake(record, "guild", x.Guild); err != nil {
		return PublicPlayer{}, err
	}
	if out.User, err = Snowflake(record, "user", x.User); err != nil {
		return PublicPlayer{}, err
	}
	if len(x.Reveals) > game.MaxReveals {
		return PublicPlayer{}, fieldErr(record, "r", "%d revealed seeds, at most %d", len(x.Reveals), game.MaxReveals)
	}
	if out.History, out.Reveals, err = linesOf(record, x.History, x.Reveals); err != nil {
		return PublicPlayer{}, err
	}
	if err := revealsErr(record, game.AfterReveals(out.Reveals).CheckReveals(out.Reveals)); err != nil {
		return PublicPlayer{}, err
	}
	return out, nil
}
