package boltstore

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/lesclefsdutresor/clefs/game"
	"github.com/lesclefsdutresor/clefs/storage/storetest"
)

// fullPlayer returns the record of a player after 40 plays.
func fullPlayer(b *testing.B) playerRec {
	seed, _ := game.NewSeed(storetest.Seeds(1))
	now := time.Now().UTC().Truncate(time.Millisecond)
	p, _ := game.NewPlayer(1_000_000, seed, "client", now)
	for i := range 40 {
		s, _, err := game.Apply(p, fmt.Sprintf("1%018d", i), func(p game.Player) (game.Step, error) { return p.Buy(game.House{}, now) })
		if err != nil {
			b.Fatal(err)
		}
		p = s.Player
		s, _, err = game.Apply(p, fmt.Sprintf("2%018d", i), func(p game.Player) (game.Step, error) {
			return p.Reveal(game.SeededDrawer{}, p.Ticket.ID, game.AllRows, now)
		})
		if err != nil {
			b.Fatal(err)
		}
		p = s.Player
		if p.ChestDue {
			s, _ = p.OpenChest(game.SeededDrawer{}, p.ChestSeq+1, now)
			p = s.Player
		}
	}
	return playerRec{Version: 80, HSeq: 40, Player: p}
}

// BenchmarkPlayerRecord compares the encodings of a player with 40 plays
// remembered (players.go says why players are in gob).
func BenchmarkPlayerRecord(b *testing.B) {
	r := fullPlayer(b)
	js, _ := json.Marshal(r)
	b.Run(fmt.Sprintf("JSONDecode%dB", len(js)), func(b *testing.B) {
		for b.Loop() {
			var x playerRec
			if err := json.Unmarshal(js, &x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("JSONEncode", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(r)
		}
	})
	var buf bytes.Buffer
	_ = gob.NewEncoder(&buf).Encode(r)
	gb := buf.Bytes()
	b.Run(fmt.Sprintf("GobDecode%dB", len(gb)), func(b *testing.B) {
		for b.Loop() {
			var x playerRec
			if err := gob.NewDecoder(bytes.NewReader(gb)).Decode(&x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GobEncode", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			_ = gob.NewEncoder(&buf).Encode(r)
		}
	})
}
