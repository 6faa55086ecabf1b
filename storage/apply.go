package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
)

// Step is one change of a player through Apply: a transition of package
// game, applied under an operation ID.
type Step struct {
	ID PlayerID
	// Op is the operation's ID: the Discord interaction's ID, or an
	// operator command's own. A repeated operation changes nothing and
	// returns the result it had the first time (game.Apply).
	Op string
	// Create creates the player when it was never written, with Start
	// credits and a server seed and a client seed read from Seeds
	// (game.NewSeed, game.NewClientSeed); otherwise such a player is
	// ErrNoPlayer.
	Create bool
	// Start is the balance of a player created, or repaired.
	Start int64
	// Repair lets the step replace a record that does not decode
	// (Versioned.Damaged): game.Player.Repair builds a fresh player of
	// Start credits from what could be read of it and from its history and
	// reveals kept beside it, with seeds read from Seeds. Otherwise such a
	// player is its *DamagedError and nothing is written. A reset asks
	// for it: it is the step that starts a player again.
	Repair bool
	// Seeds gives new seeds: a new player's, and the next server seed of
	// a player who has none (game.Player.WithNextSeed); nil gives none.
	Seeds io.Reader // crypto/rand.Reader in production
	// Now is the time of the step (already rounded by Timestamp).
	Now time.Time
	// Do is the transition, e.g. func(p game.Player) (game.Step, error) {
	// return p.Buy(game.House{}, now) }.
	Do func(game.Player) (game.Step, error)
	// Audit, when not nil, gives the moderator log's entry of the step.
	Audit func(game.Step) *game.AuditEntry
}

// Applied is what Apply did.
type Applied struct {
	// Player is the state after the step; after an error, or for a
	// repeated operation, the state as it is.
	Player   game.Player
	Result   game.Result  // the step's result (a repeated operation's first one)
	History  []game.Entry // the history lines written
	Repeated bool         // the operation had already been applied: nothing changed
	Created  bool         // the step created the player
	// Repaired, when not nil, is what could be read of the damaged record
	// the step replaced (Step.Repair; Versioned.Damaged).
	Repaired *game.Player
}

// errBeside: a damaged record's repair needs what is kept beside it,
// which Apply reads outside Update (fn must not call the store).
var errBeside = errors.New("storage: repair: the history and reveals are needed")

// repair is what game.Player.Repair needs besides the damaged record:
// its history and reveals, and new seeds.
type repair struct {
	h      []game.Entry
	rs     game.Reveals
	seed   game.Seed
	client string
}

// readRepair reads what the repair of s's damaged player needs.
func readRepair(ctx context.Context, st Store, s Step) (*repair, error) {
	var r repair
	var err error
	if r.h, err = st.History(ctx, s.ID, HistoryLimit); err != nil {
		return nil, fmt.Errorf("storage: repair %d/%d: %w", s.ID.Guild, s.ID.User, err)
	}
	if r.rs, err = st.Reveals(ctx, s.ID); err != nil {
		return nil, fmt.Errorf("storage: repair %d/%d: %w", s.ID.Guild, s.ID.User, err)
	}
	if r.seed, err = game.NewSeed(s.Seeds); err != nil {
		return nil, fmt.Errorf("storage: a repaired player's seed: %w", err)
	}
	if r.client, err = game.NewClientSeed(s.Seeds); err != nil {
		return nil, fmt.Errorf("storage: a repaired player's client seed: %w", err)
	}
	return &r, nil
}

// Apply applies s to the player in one atomic step of st: it loads the
// player, runs the transition through game.Apply (the rules, and the
// operation's ID), and writes the result with compare-and-set, running the
// transition again on the fresh state if another writer came first. It
// decides nothing itself. Errors are the transition's (game.ErrInsufficientFunds…),
// ErrNoPlayer, a *DamagedError (unless s.Repair), or internal; the
// returned Applied.Player is then the player's current state, for the
// reply.
func Apply(ctx context.Context, st Store, s Step) (Applied, error) {
	if err := ValidateID(s.ID); err != nil {
		return Applied{}, err
	}
	var seed game.Seed
	var client string
	if s.Create {
		var err error
		if seed, err = game.NewSeed(s.Seeds); err != nil {
			return Applied{}, fmt.Errorf("storage: a new player's seed: %w", err)
		}
		if client, err = game.NewClientSeed(s.Seeds); err != nil {
			return Applied{}, fmt.Errorf("storage: a new player's client seed: %w", err)
		}
	}
	if err := game.ValidateOp(s.Op); err != nil {
		return Applied{}, err
	}
	var out Applied
	var next game.Seed
	var fix *repair // read once a damaged record needs it
	fn := func(v Versioned) (Write, error) {
		out = Applied{Player: v.Player}
		p, do := v.Player, s.Do
		switch {
		case v.Damaged != nil && !s.Repair:
			return Write{}, v.Damaged
		case v.Damaged != nil:
			if fix == nil {
				return Write{}, errBeside
			}
			do = func(p game.Player) (game.Step, error) {
				return p.Repair(fix.h, fix.rs, s.Start, fix.seed, fix.client, s.Now)
			}
			out.Repaired = &v.Player
		case !v.Exists():
			if !s.Create {
				return Write{}, ErrNoPlayer
			}
			var err error
			if p, err = game.NewPlayer(s.Start, seed, client, s.Now); err != nil {
				return Write{}, fmt.Errorf("storage: new player %d/%d: %w", s.ID.Guild, s.ID.User, err)
			}
			out.Created = true
		}
		if p.NextSeed == (game.Seed{}) && s.Seeds != nil {
			// A new player, or one from before next seeds: commit the
			// seed its next rotation uses (read once, whatever the retries).
			if next == (game.Seed{}) {
				var err error
				if next, err = game.NewSeed(s.Seeds); err != nil {
					return Write{}, fmt.Errorf("storage: a next seed: %w", err)
				}
			}
			p = p.WithNextSeed(next)
		}
		step, op, err := game.Apply(p, s.Op, do)
		if err != nil {
			return Write{}, err
		}
		out.Player, out.Result, out.History = step.Player, op.Result, step.History
		w := Write{Player: step.Player, History: step.History, Reveal: step.Reveal, Result: op.Result}
		if s.Audit != nil {
			w.Audit = s.Audit(step)
		}
		return w, nil
	}
	v, err := st.Update(ctx, s.ID, s.Op, fn)
	if errors.Is(err, errBeside) {
		if fix, err = readRepair(ctx, st, s); err != nil {
			return Applied{}, err
		}
		v, err = st.Update(ctx, s.ID, s.Op, fn)
	}
	if v.Repeat != nil {
		return Applied{Player: v.Player, Result: *v.Repeat, Repeated: true}, nil
	}
	if err != nil {
		// The state as it is, for the reply (fn's view of it).
		return out, err
	}
	out.Player = v.Player
	return out, nil
}
