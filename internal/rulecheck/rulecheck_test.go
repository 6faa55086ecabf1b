package rulecheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var rules = Rules{
	Names:        regexp.MustCompile(`^nearMaxBalance$`),
	Never:        []string{"game.MaxGuildOps"},
	NotCompared:  []string{"game.MaxBalance"},
	NoArithmetic: []string{"KeysAfter"},
	NeverFields:  []string{"LastDaily"},
	ListPrefix:   "game.Kind",
	MaxListed:    1,
}

// checkSource is Check of one file's source, named filename.
func checkSource(filename, src string, r Rules) ([]Finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("rulecheck: %w", err)
	}
	return r.file(fset, f), nil
}

// TestCheckSource: each copy the rules describe is found, and the same
// code written as calls into game is not.
func TestCheckSource(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // a part of the finding; "" for none
	}{
		{"a removed function", `func nearMaxBalance(b int64) bool { return false }`, "function nearMaxBalance declared"},
		{"a method of that name is not a copy", `func (x T) nearMaxBalance() bool { return false }`, ""},
		{"a constant of that name", `const nearMaxBalance = 1`, "const nearMaxBalance declared"},
		{"a bound compared", `func f(b int64) bool { return b > game.MaxBalance-game.TierGem.Prize() }`, "comparison against game.MaxBalance"},
		{"a bound in a conversion, compared", `func f(b int64) bool { return float64(b) <= float64(game.MaxBalance) }`, "comparison against game.MaxBalance"},
		{"a bound shown, not compared", `var max = game.MaxBalance / 100`, ""},
		{"a bound referenced", `func f() int { return game.MaxGuildOps }`, "game.MaxGuildOps referenced"},
		{"arithmetic on a field", `func f(t game.Ticket) int { return t.KeysAfter - 1 }`, "arithmetic on KeysAfter"},
		{"a field read", `func f(p game.Player) bool { return p.LastDaily.IsZero() }`, "LastDaily read"},
		{"a field read as is", `func f(t game.Ticket) int { return t.KeysAfter }`, ""},
		{"a list in a case", `func f(k game.Kind) bool { switch k { case game.KindPlay, game.KindChest: return true }; return false }`, "hand-written list of 2"},
		{"a list in a literal", `var ks = []game.Kind{game.KindPlay, game.KindDaily}`, "hand-written list of 2"},
		{"one constant is not a list", `func f(k game.Kind) bool { switch k { case game.KindPlay: return true }; return false }`, ""},
		{"game's calls", `func f(p game.Player, b int64) bool { return game.BalanceFull(b) && p.DailyReady(0, now) && k.Valid() }`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, err := checkSource("x.go", "package x\n"+tc.src+"\n", rules)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && len(found) != 0:
				t.Fatalf("found %v in code that calls game", found)
			case tc.want != "" && (len(found) == 0 || !strings.Contains(found[0].What, tc.want)):
				t.Fatalf("found %v, want %q", found, tc.want)
			}
		})
	}
}

// TestCheckWalks: Check reads a directory tree, skipping tests, testdata
// and the directories asked, and reports where.
func TestCheckWalks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyOf := "package x\nfunc nearMaxBalance() {}\n"
	write("a.go", "package x\n")
	write("sub/b.go", copyOf)
	write("a_test.go", copyOf)
	write("testdata/c.go", copyOf)
	write("suite/d.go", copyOf)
	r := rules
	r.Skip = []string{"suite"}
	found, err := Check(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || filepath.Base(found[0].Pos.Filename) != "b.go" || found[0].Pos.Line != 2 {
		t.Fatalf("found %v, want the copy in sub/b.go line 2 only", found)
	}
	write("broken.go", "package x\nfunc {")
	if _, err := Check(dir, r); err == nil {
		t.Fatal("a file that does not parse was accepted")
	}
}
