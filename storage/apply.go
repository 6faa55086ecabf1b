package storage

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Step is one change of a player, as a value: a game.Move, for whom and
// under which operation ID, with what a new player needs. A store runs it
// (Store.Run); nothing in it calls back.
type Step struct {
	ID PlayerID
	// Op is the operation's ID: the Discord interaction's ID, or an
	// operator command's own. A repeated operation changes nothing and
	// returns the result it had the first time.
	Op string
	// Move is what the step does (game.Buy, game.Reveal…).
	Move game.Move
	// Create creates the player when it was never written, with Start
	// credits and a server seed and a client seed read from Seeds
	// (game.NewSeed, game.NewClientSeed); otherwise such a player is
	// ErrNoPlayer.
	Create bool
	// Start is the balance of a player created, or repaired.
	Start int64
	// Repair lets the step replace a record that does not decode
	// (Versioned.Damaged) with a fresh player of Start credits (game.Repair,
	// seeds read from Seeds); a reset asks for it, being the step that
	// starts a player again.
	Repair bool
	// Seeds gives new seeds: a new player's, and the next server seed of
	// a player who has none (game.Player.WithNextSeed); nil gives none.
	Seeds io.Reader // crypto/rand.Reader in production
	// Now is the time of the step (already rounded by Timestamp).
	Now time.Time
}

// Applied is what a step did, as data.
type Applied struct {
	// Before is the state the move was applied to; Player the state after
	// the step. After an error, or for a repeated operation, both are the
	// state as it is.
	Before, Player game.Player
	Result         game.Result  // the step's result (a repeated operation's first one)
	History        []game.Entry // the history lines written
	// Audit is the moderator log's entry written, nil if none.
	Audit    *game.AuditEntry
	Finished bool // a Reveal showed the ticket's last hidden rows
	Repeated bool // the operation had already been applied: nothing changed
	Created  bool // the step created the player
	// Repaired, when not nil, is what could be read of the damaged record
	// the step replaced (Step.Repair; Versioned.Damaged).
	Repaired *game.Player
}

// Run is one Step being run by a store: the step checked once (Start) and
// the seeds it draws, each at most once whatever the compare-and-set
// retries. A store calls Next on the player it read and writes what Next
// returns, calling Next again on the fresh state after a conflict.
type Run struct {
	s          Step
	seed, next game.Seed
	client     string
	fix        *game.Repair // a damaged record's repair, once ReadBeside read what it needs
}

// Start checks s (the player's ID, the operation's ID, a move) and draws
// the seeds of a player it may create. Errors wrap ErrInvalid, or are the
// seeds' reader's.
func Start(s Step) (*Run, error) {
	if err := ValidateID(s.ID); err != nil {
		return nil, err
	}
	if err := game.ValidateOp(s.Op); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if s.Move == nil {
		return nil, fmt.Errorf("%w: step %q without a move", ErrInvalid, s.Op)
	}
	r := &Run{s: s}
	if s.Create {
		var err error
		if r.seed, err = game.NewSeed(s.Seeds); err != nil {
			return nil, fmt.Errorf("storage: a new player's seed: %w", err)
		}
		if r.client, err = game.NewClientSeed(s.Seeds); err != nil {
			return nil, fmt.Errorf("storage: a new player's client seed: %w", err)
		}
	}
	return r, nil
}

// NeedsBeside reports whether Next, given v, needs the history and reveals
// kept beside the player (ReadBeside) first: v is a damaged record the step
// repairs.
func (r *Run) NeedsBeside(v Versioned) bool {
	return v.Damaged != nil && r.s.Repair && r.fix == nil
}

// ReadBeside reads from st the history and reveals kept beside the player
// whose damaged record the step repairs, and draws the repaired player's
// seeds. A store calls it when NeedsBeside says so.
func (r *Run) ReadBeside(ctx context.Context, st Store) error {
	id := r.s.ID
	h, err := st.History(ctx, id, HistoryLimit)
	if err != nil {
		return fmt.Errorf("storage: repair %d/%d: %w", id.Guild, id.User, err)
	}
	rs, err := st.Reveals(ctx, id)
	if err != nil {
		return fmt.Errorf("storage: repair %d/%d: %w", id.Guild, id.User, err)
	}
	fresh, err := game.NewSeed(r.s.Seeds)
	if err != nil {
		return fmt.Errorf("storage: a repaired player's seed: %w", err)
	}
	client, err := game.NewClientSeed(r.s.Seeds)
	if err != nil {
		return fmt.Errorf("storage: a repaired player's client seed: %w", err)
	}
	r.fix = &game.Repair{History: h, Reveals: rs, Start: r.s.Start, Fresh: fresh, Client: client, Then: r.s.Move}
	return nil
}

// Repeat is what a store answers for a repeated operation: v as it is,
// with the first result (v.Repeat).
func Repeat(v Versioned) Applied {
	return Applied{Before: v.Player, Player: v.Player, Result: *v.Repeat, Repeated: true}
}

// Next applies the step to v, the player as stored, and returns what to
// write (with the operation's result, remembered beside the player) and
// what the step did. Its errors are the move's (game.ErrInsufficientFunds…),
// ErrNoPlayer, v's *DamagedError (unless the step repairs it), or the
// seeds reader's; Applied then holds the player as it is, for the reply.
// It is pure but for the seeds and draws: a store may call it again on a
// fresher state.
func (r *Run) Next(v Versioned) (Write, Applied, error) {
	s := r.s
	out := Applied{Before: v.Player, Player: v.Player}
	p, m := v.Player, s.Move
	switch {
	case v.Damaged != nil && !s.Repair:
		return Write{}, out, v.Damaged
	case v.Damaged != nil:
		if r.fix == nil {
			return Write{}, out, fmt.Errorf("storage: repair %d/%d: the history and reveals were not read (Run.ReadBeside)", s.ID.Guild, s.ID.User)
		}
		m = *r.fix
		out.Repaired = &v.Player
	case !v.Exists():
		if !s.Create {
			return Write{}, out, ErrNoPlayer
		}
		var err error
		if p, err = game.NewPlayer(s.Start, r.seed, r.client, s.Now); err != nil {
			return Write{}, out, fmt.Errorf("storage: new player %d/%d: %w", s.ID.Guild, s.ID.User, err)
		}
		out.Created = true
	}
	if p.NextSeed == (game.Seed{}) && s.Seeds != nil {
		// A new player, or one from before next seeds: commit the seed its
		// next rotation uses (read once, whatever the retries).
		if r.next == (game.Seed{}) {
			var err error
			if r.next, err = game.NewSeed(s.Seeds); err != nil {
				return Write{}, out, fmt.Errorf("storage: a next seed: %w", err)
			}
		}
		p = p.WithNextSeed(r.next)
	}
	step, err := game.Apply(p, m, s.Now)
	if err != nil {
		return Write{}, out, err
	}
	out.Player, out.Result, out.History, out.Audit, out.Finished = step.Player, step.Result, step.History, step.Audit, step.Finished
	return Write{Player: step.Player, History: step.History, Reveals: step.Reveals, Result: step.Result, Audit: step.Audit}, out, nil
}
