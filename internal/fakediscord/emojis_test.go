package fakediscord_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// pngURI returns a small PNG as the data URI Discord takes.
func pngURI(tb testing.TB) (string, []byte) {
	tb.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.NRGBA{255, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()), b.Bytes()
}

func TestApplicationEmojis(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	s := restSession(t, srv, token)
	app := srv.AppID()
	uri, raw := pngURI(t)

	if got, err := s.ApplicationEmojis(app); err != nil || len(got) != 0 {
		t.Fatalf("list of a new application = %v, %v; want none", got, err)
	}
	e, err := s.ApplicationEmojiCreate(app, &discordgo.EmojiParams{Name: "clefs_gem", Image: uri})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if e.ID == "" || e.Name != "clefs_gem" || e.MessageFormat() != "<:clefs_gem:"+e.ID+">" {
		t.Errorf("created %+v", e)
	}
	if !bytes.Equal(srv.EmojiImage(e.ID), raw) {
		t.Error("the fake does not hold the uploaded image")
	}
	got, err := s.ApplicationEmoji(app, e.ID)
	if err != nil || got.Name != "clefs_gem" {
		t.Errorf("get = %+v, %v", got, err)
	}
	list, err := s.ApplicationEmojis(app)
	if err != nil || len(list) != 1 || list[0].ID != e.ID {
		t.Errorf("list = %v, %v", list, err)
	}
	ed, err := s.ApplicationEmojiEdit(app, e.ID, &discordgo.EmojiParams{Name: "clefs_diamond"})
	if err != nil || ed.Name != "clefs_diamond" || ed.ID != e.ID {
		t.Errorf("edit = %+v, %v", ed, err)
	}
	if err := s.ApplicationEmojiDelete(app, e.ID); err != nil {
		t.Errorf("delete: %v", err)
	}
	if list := srv.Emojis(); len(list) != 0 {
		t.Errorf("after delete the fake holds %v", list)
	}
	if n := srv.EmojiCreates(); n != 1 {
		t.Errorf("EmojiCreates = %d, want 1", n)
	}
	noFailures(t, srv)
}

func TestApplicationEmojiRefusals(t *testing.T) {
	t.Parallel()
	srv := startFake(t, fakediscord.Options{})
	s := restSession(t, srv, token)
	app := srv.AppID()
	uri, _ := pngURI(t)
	first, err := s.ApplicationEmojiCreate(app, &discordgo.EmojiParams{Name: "taken", Image: uri})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, fakediscord.MaxEmojiBytes+1)
	copy(big, "\x89PNG\r\n\x1a\n")
	for _, tc := range []struct {
		name, image string
		field       string // in the errors of the 400 50035
	}{
		{"a", uri, "BASE_TYPE_BAD_LENGTH"},
		{strings.Repeat("x", 33), uri, "BASE_TYPE_BAD_LENGTH"},
		{"has-dash", uri, "STRING_TYPE_REGEX"},
		{"clé", uri, "STRING_TYPE_REGEX"},
		{"taken", uri, "APPLICATION_EMOJI_NAME_ALREADY_TAKEN"},
		{"", uri, "BASE_TYPE_REQUIRED"}, // omitempty: no name sent
		{"noimage", "", "BASE_TYPE_REQUIRED"},
		{"rawbase64", strings.TrimPrefix(uri, "data:image/png;base64,"), "IMAGE_INVALID"},
		{"wrongmime", strings.Replace(uri, "image/png", "text/plain", 1), "IMAGE_INVALID"},
		{"notbase64", "data:image/png;base64,!!!", "IMAGE_INVALID"},
		{"notanimage", "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello")), "IMAGE_INVALID"},
		{"toolarge", "data:image/png;base64," + base64.StdEncoding.EncodeToString(big), "BINARY_TYPE_MAX_SIZE"},
	} {
		before := len(srv.Failures())
		_, err := s.ApplicationEmojiCreate(app, &discordgo.EmojiParams{Name: tc.name, Image: tc.image})
		st, code := restCode(err)
		if st != 400 || code != 50035 {
			t.Errorf("create %q: %v (status %d code %d), want 400 50035", tc.name, err, st, code)
			continue
		}
		f := srv.Failures()
		if len(f) != before+1 || !strings.Contains(f[len(f)-1].Errors, tc.field) {
			t.Errorf("create %q: failures %v, want one more naming %s", tc.name, f[before:], tc.field)
		}
	}
	// Wrong application, unknown emoji, wrong token.
	if _, err := s.ApplicationEmojis("999"); err == nil {
		t.Error("listing another application's emojis succeeded")
	} else if st, code := restCode(err); st != 403 || code != 50001 {
		t.Errorf("another application: %d %d, want 403 50001", st, code)
	}
	if _, err := s.ApplicationEmojiCreate("999", &discordgo.EmojiParams{Name: "other", Image: uri}); err == nil {
		t.Error("creating another application's emoji succeeded")
	}
	for _, call := range []func() error{
		func() error { _, err := s.ApplicationEmoji(app, "123"); return err },
		func() error {
			_, err := s.ApplicationEmojiEdit(app, "123", &discordgo.EmojiParams{Name: "ok_name"})
			return err
		},
		func() error { return s.ApplicationEmojiDelete(app, "123") },
	} {
		if st, code := restCode(call()); st != 404 || code != 10014 {
			t.Errorf("unknown emoji: %d %d, want 404 10014", st, code)
		}
	}
	if _, err := restSession(t, srv, "wrong").ApplicationEmojis(app); err == nil {
		t.Error("listing with a wrong token succeeded")
	} else if st, _ := restCode(err); st != 401 {
		t.Errorf("wrong token: %d, want 401", st)
	}
	// A rename to a taken or bad name changes nothing.
	second, err := s.ApplicationEmojiCreate(app, &discordgo.EmojiParams{Name: "second", Image: uri})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"taken", "x", "bad name"} {
		if _, err := s.ApplicationEmojiEdit(app, second.ID, &discordgo.EmojiParams{Name: name}); err == nil {
			t.Errorf("rename to %q succeeded", name)
		}
	}
	names := []string{}
	for _, e := range srv.Emojis() {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "taken,second" {
		t.Errorf("after the refusals the fake holds %v, want [taken second]", names)
	}
	// Refusing uploads: creation is refused, listing still works.
	srv.SetRefuseEmojis(true)
	if _, err := s.ApplicationEmojiCreate(app, &discordgo.EmojiParams{Name: "third", Image: uri}); err == nil {
		t.Error("create succeeded with uploads refused")
	} else if st, code := restCode(err); st != 403 || code != 50013 {
		t.Errorf("refused upload: %d %d, want 403 50013", st, code)
	}
	if list, err := s.ApplicationEmojis(app); err != nil || len(list) != 2 || list[0].ID != first.ID {
		t.Errorf("list with uploads refused = %v, %v", list, err)
	}
	if n := srv.EmojiCreates(); n != 2 {
		t.Errorf("EmojiCreates = %d, want 2", n)
	}
}
