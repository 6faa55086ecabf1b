package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tryTestNow is the clock of the sessions of the tests: Wednesday
// 2 December 2026, 15:04:05 UTC.
var tryTestNow = time.Date(2026, 12, 2, 15, 4, 5, 0, time.UTC)

// runTrySession runs `clefs try -seed 1` through Main on script as its
// standard input, in a temporary directory of the test's own, and checks
// that it ends cleanly: no error, the temporary store removed, no
// goroutine left behind. It returns what the session printed.
func runTrySession(t *testing.T, script string, args ...string) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.MkdirTemp's directory
	before := runtime.NumGoroutine()
	prev, prevClock := tryStdin, tryClock
	tryStdin = strings.NewReader(script)
	tryClock = func() time.Time { return tryTestNow }
	defer func() { tryStdin, tryClock = prev, prevClock }()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := Main(ctx, append([]string{"try", "-seed", "1"}, args...), &stdout, &stderr)
	out := stdout.String()
	if err != nil {
		t.Fatalf("try: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
		t.Errorf("temporary directory not removed: %v %v", left, err)
	}
	// The bot, the fake and the prompt's reader have stopped: wait (with a
	// deadline) for their goroutines to be gone.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left after the session (%d before):\n%s",
				runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr not empty without -v (the logs go to a file):\n%s", stderr.String())
	}
	return out
}

// between is the output of the command typed after prompt, up to the next prompt.
func between(t *testing.T, out, command string) string {
	t.Helper()
	_, after, ok := strings.Cut(out, "> "+command+"\n")
	if !ok {
		t.Fatalf("command %q not in the session:\n%s", command, out)
	}
	if i := strings.Index(after, "]> "); i >= 0 {
		after = after[:i]
	}
	return after
}

func TestTrySession(t *testing.T) {
	script := strings.Join([]string{
		"/play",
		"as 43",
		"auto",
		"as 42",
		"auto",
		"/balance",
		"lang fr",
		"/jouer",
		"as mod",
		"/admin grant @42 5 welcome gift",
		"as 42",
		"/admin grant @42 5 self-service",
		"fly me to the moon",
		"row 9",
		"/nothing",
		"quit",
		"/play", // after quit: never run
	}, "\n") + "\n"
	out := runTrySession(t, script)

	play := between(t, out, "/play")
	for _, want := range []string{
		"┃ 🗝️ Les Clefs du Trésor\n",
		"┃ ▶️ ❔ ❔ ❔\n┃ ▶️ ❔ ❔ ❔\n┃ ▶️ ❔ ❔ ❔\n",
		"Balance: 19.50 credits", // 20.00 to start, minus the stake
		"┃ Ticket #1 · stake 0.50 credits",
		"[▶️ Row 1] [▶️ Row 2] [▶️ Row 3] [⚡ Auto]\n",
	} {
		if !strings.Contains(play, want) {
			t.Errorf("/play lacks %q:\n%s", want, play)
		}
	}

	// Another user presses the owner's button: the bot refuses, to them only.
	refusal := between(t, out, "auto")
	if !strings.HasPrefix(refusal, onlyYou) || !strings.Contains(refusal, "These buttons belong to @user42") {
		t.Errorf("user 43's click not refused:\n%s", refusal)
	}

	// The owner's Auto reveals nine symbols (the application's emojis'
	// fallbacks) and greys the first row (was TestRenderTicketCard's).
	_, afterAs42, _ := strings.Cut(out, "> as 42\n")
	revealed := between(t, afterAs42, "auto")
	lines := strings.Split(revealed, "\n")
	if len(lines) < 4 {
		t.Fatalf("revealed card too short:\n%s", revealed)
	}
	symbols := "💎 🪈 💣 🗡️ 🕯️ 🛢️ 🗝️"
	for _, l := range lines[1:4] {
		f := strings.Fields(strings.TrimPrefix(l, frame))
		if len(f) != 4 || f[0] == "▶️" {
			t.Fatalf("grid line %q is not revealed:\n%s", l, revealed)
		}
		for _, c := range f[1:] {
			if !strings.Contains(symbols, c) {
				t.Errorf("cell %q of %q is not a symbol", c, l)
			}
		}
	}
	if !strings.Contains(revealed, "[▶️ Row 1"+greyed+"] [▶️ Row 2"+greyed+"] [▶️ Row 3"+greyed+"] [⚡ Auto"+greyed+"]") ||
		!strings.Contains(revealed, "Play again") || strings.Contains(revealed, "<:") {
		t.Errorf("finished card without its first row greyed and Play again, or with custom emoji markup:\n%s", revealed)
	}

	if b := between(t, out, "/balance"); !strings.HasPrefix(b, "(only you)\n") {
		t.Errorf("/balance is not ephemeral:\n%s", b)
	}
	for cmd, wants := range map[string][]string{
		"/balance":                        {"Balance: "},
		"/jouer":                          {"Ticket n° 2", "Solde", "crédits"}, // a French card after lang fr
		"/admin grant @42 5 welcome gift": {"@user42", "5,00 crédits", "welcome gift"},
	} {
		for _, want := range wants {
			if got := between(t, out, cmd); !strings.Contains(got, want) {
				t.Errorf("%q lacks %q:\n%s", cmd, want, got)
			}
		}
	}
	if !strings.Contains(out, "user42 [fr]> /jouer") || !strings.Contains(out, "mod [fr]> /admin") {
		t.Errorf("prompts do not show the user and the language:\n%s", out)
	}
	if denied := between(t, out, "/admin grant @42 5 self-service"); !strings.Contains(denied, "as mod") || strings.Contains(denied, "5,00 crédits") {
		t.Errorf("a member's /admin not refused:\n%s", denied)
	}

	// The session is in French by now: so are its own lines.
	for cmd, want := range map[string]string{
		"fly me to the moon": `commande inconnue "fly" : tapez une /commande (/jouer /solde`,
		"row 9":              "ligne : une ligne de 1 à 3",
		"/nothing":           "commande inconnue /nothing : le bot a /jouer /solde",
	} {
		if got := between(t, out, cmd); !strings.Contains(got, want) || strings.Count(got, "\n") != 1 {
			t.Errorf("%q: want one line with %q, got:\n%s", cmd, want, got)
		}
	}

	if !strings.HasSuffix(out, "> quit\n"+langFR.t("bye", nil)) { // the session ended in French
		t.Errorf("quit does not end the session:\n%s", out)
	}
}

// TestTryButtons checks that a button is pressed by its label or a word
// of either language, in any case and with or without accents: a /pause
// confirmed by "yes" then in effect (its end shown as Discord shows it, at
// the session's clock), another cancelled by "Annuler", a French card's
// confirmation pressed by "OUI", a finished card's Auto refused as greyed,
// and an unknown word or a missing button answered with the buttons there
// are.
func TestTryButtons(t *testing.T) {
	script := strings.Join([]string{
		"yes",
		"/pause 24h",
		"open",
		"cancel please",
		"yes",
		"/play",
		"as 43",
		"lang fr",
		"/pause 7 jours",
		"Annuler",
		"/pause 30d",
		"OUI",
		"/jouer",
		"as 44",
		"lang en",
		"/play",
		"auto",
		"Auto",
		"dance",
		"Play again",
		"as mod",
		"/admin reset-guild a test",
		"Yes",
		"quit",
	}, "\n") + "\n"
	out := runTrySession(t, script)

	for cmd, want := range map[string]string{
		"yes":                       `no button "yes" to press: no card with buttons yet (/play first)`,
		"open":                      `no button "open" to press: the buttons of your last card are [Yes, pause my play] [Cancel]`,
		"cancel please":             `unknown command "cancel": type a /command (/play /balance`,
		"Annuler":                   "Pas de pause : rien n'a changé.",
		"Auto":                      "[⚡ Auto ·greyed] is disabled (greyed)",
		"dance":                     `unknown command "dance": type a /command (/play /balance /rules /leaderboard /daily /history /fairness /limits /pause /admin), a button's label ([▶️ Row 1 ·greyed] [▶️ Row 2 ·greyed] [▶️ Row 3 ·greyed] [⚡ Auto ·greyed]`,
		"/play":                     "Your play is paused until Thursday, December 3, 2026 3:04 PM: no tickets", // after the pause
		"OUI":                       "en pause jusqu'au vendredi 1 janvier 2027 15:04. Prenez soin",             // on a French /pause confirmation
		"/jouer":                    "Votre jeu est en pause jusqu'au vendredi 1 janvier 2027 15:04",
		"Play again":                "Ticket #2", // by its label
		"/admin reset-guild a test": "[Yes, reset everyone] [Cancel]",
	} {
		if got := between(t, out, cmd); !strings.Contains(got, want) {
			t.Errorf("%q: want %q, got:\n%s", cmd, want, got)
		}
	}
	_, afterPause, _ := strings.Cut(out, "> /pause 24h\n")
	if got := between(t, afterPause, "yes"); !strings.Contains(got, "Your play is paused until Thursday, December 3, 2026 3:04 PM. Take care") ||
		strings.Contains(got, "[Cancel]") {
		t.Errorf("yes on the /pause confirmation: want the pause confirmed, its buttons gone:\n%s", got)
	}
	if got := between(t, out, "/pause 7 jours"); !strings.Contains(got, "jusqu'au mercredi 9 décembre 2026 15:04") ||
		!strings.Contains(got, "[Oui, mettre mon jeu en pause] [Annuler]") || !strings.HasPrefix(got, "(vous seul)") {
		t.Errorf("/pause by a choice's French name:\n%s", got)
	}
	if got := between(t, out, "Yes"); !strings.Contains(got, "┃ Reset the whole server") ||
		!strings.Contains(got, "players were reset.") && !strings.Contains(got, "Resetting…") { // done, or still running in the background
		t.Errorf("Yes on the reset-guild confirmation:\n%s", got)
	}
}

// TestTryEOF checks that the end of the input ends the session like quit,
// and that -seed replays the same draws.
func TestTryEOF(t *testing.T) {
	script := "/play\nrow 2\nauto\nagain\nauto" // no quit, no final newline
	grids := func(out string) string {
		var b strings.Builder
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, frame+"▫️") || strings.HasPrefix(l, frame+"⭐") || strings.Contains(l, "seed ") {
				b.WriteString(l + "\n")
			}
		}
		return b.String()
	}
	first := runTrySession(t, script)
	if !strings.HasSuffix(first, "\nBye: the bot stops and the temporary store is removed.\n") {
		t.Errorf("end of input does not end the session:\n%s", first)
	}
	if n := strings.Count(first, "Ticket #2"); n == 0 {
		t.Errorf("again did not play ticket 2:\n%s", first)
	}
	g := grids(first)
	if strings.Count(g, "\n") < 6 {
		t.Fatalf("too few revealed rows:\n%s", first)
	}
	if again := grids(runTrySession(t, script)); again != g {
		t.Errorf("-seed 1 twice, different draws:\n%s\nthen:\n%s", g, again)
	}
}

// TestTryExport checks that /fairness export's file is listed with its
// size and saved in -files, where it is the player's public export that
// clefs verify -export checks.
func TestTryExport(t *testing.T) {
	files := t.TempDir() // before runTrySession's TMPDIR, which must end empty
	out := runTrySession(t, "/play\nauto\n/fairness rotate\n/fairness export\nquit\n", "-files", files)
	got := between(t, out, "/fairness export")
	path := filepath.Join(files, "clefs-equite-42.json")
	line := regexp.MustCompile(`(?m)^📎 clefs-equite-42\.json \((\d+ B|\d+\.\d kB)\)\n   saved as (.*)\n`).FindStringSubmatch(got)
	if !strings.HasPrefix(got, onlyYou) || line == nil || line[2] != path {
		t.Fatalf("/fairness export: want an ephemeral reply, a 📎 line and saved as %s:\n%s", path, got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if byteSize(len(data), langEN) != line[1] {
		t.Errorf("size shown %s, file of %d bytes", line[1], len(data))
	}
	// In French, the lines the session adds are French too.
	frFiles := t.TempDir()
	fr := between(t, runTrySession(t, "/jouer\nauto\n/equite reveler\n/equite exporter\nquit\n", "-lang", "fr", "-files", frFiles), "/equite exporter")
	if !regexp.MustCompile(`(?m)^\(vous seul\) .*\n(.*\n)*📎 clefs-equite-42\.json \((\d+ o|\d+,\d ko)\)\n   enregistré sous `).MatchString(fr) {
		t.Errorf("/equite exporter in French:\n%s", fr)
	}

	var vout bytes.Buffer
	if err := Main(context.Background(), []string{"verify", "-export", path}, &vout, &vout); err != nil ||
		!strings.Contains(vout.String(), "(1 ticket and ") || !strings.Contains(vout.String(), "of 1 player recomputed") {
		t.Errorf("clefs verify -export %s: %v\n%s", path, err, vout.String())
	}
}

func TestTryFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Main(context.Background(), []string{"try", "-lang", "de"}, &stdout, &stderr)
	if ExitCode(err) != 2 || !strings.Contains(err.Error(), "-lang") {
		t.Errorf("try -lang de: %v (exit %d)", err, ExitCode(err))
	}
	stderr.Reset()
	err = Main(context.Background(), []string{"try", "-files", filepath.Join(t.TempDir(), "none")}, &stdout, &stderr)
	if ExitCode(err) != 2 || !strings.Contains(err.Error(), "-files") {
		t.Errorf("try -files into nothing: %v (exit %d)", err, ExitCode(err))
	}
	stderr.Reset()
	err = Main(context.Background(), []string{"try", "-h"}, &stdout, &stderr)
	if ExitCode(err) != 0 || !strings.Contains(stderr.String(), "-seed") || !strings.Contains(stderr.String(), "without a Discord account") {
		t.Errorf("try -h: %v\n%s", err, stderr.String())
	}
}
