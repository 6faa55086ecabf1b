package fakediscord_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/lesclefsdutresor/clefs/internal/fakediscord"
)

// fetch GETs an attachment's URL and returns its body and content type.
func fetch(tb testing.TB, u string) ([]byte, string) {
	tb.Helper()
	resp, err := http.Get(u)
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return b, resp.Header.Get("Content-Type")
}

// checkAttachment checks that a is the file name with data, served back by
// the fake at its URL and by Server.Attachment.
func checkAttachment(tb testing.TB, srv *fakediscord.Server, a *discordgo.MessageAttachment, channel, name, contentType string, data []byte) {
	tb.Helper()
	if a.ID == "" || a.Filename != name || a.Size != len(data) || a.ContentType != contentType || a.ProxyURL != a.URL {
		tb.Errorf("attachment = %+v, want %s (%d bytes, %s)", a, name, len(data), contentType)
	}
	want := srv.URL() + "/attachments/" + channel + "/" + a.ID + "/" + name
	if a.URL != want {
		tb.Errorf("URL = %s, want %s", a.URL, want)
	}
	got, ct := fetch(tb, a.URL)
	if !bytes.Equal(got, data) || ct != contentType {
		tb.Errorf("GET %s = %q (%s), want %q (%s)", a.URL, got, ct, data, contentType)
	}
	if b, ok := srv.Attachment(a.ID); !ok || !bytes.Equal(b, data) {
		tb.Errorf("Attachment(%s) = %q, %v", a.ID, b, ok)
	}
}

func TestMultipartAttachments(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{})
	ctx := ctxT(t)
	export := []byte(`{"version":1}` + "\n")
	done := make(chan error, 1)
	var followUp, edited *discordgo.Message
	c.handle(func(s *discordgo.Session, i *discordgo.Interaction) {
		done <- func() error {
			err := s.InteractionRespond(i, &discordgo.InteractionResponse{
				Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "your export", Flags: discordgo.MessageFlagsEphemeral,
					Files: []*discordgo.File{{Name: "export.json", ContentType: "application/json", Reader: bytes.NewReader(export)}}},
			})
			if err != nil {
				return fmt.Errorf("respond: %w", err)
			}
			// A follow-up of nothing but a file is not empty.
			followUp, err = s.FollowupMessageCreate(i, true, &discordgo.WebhookParams{
				Files: []*discordgo.File{{Name: "b.txt", ContentType: "text/plain", Reader: strings.NewReader("bee")}},
			})
			if err != nil {
				return fmt.Errorf("follow-up: %w", err)
			}
			// An edit adds its file to those the message keeps.
			edited, err = s.InteractionResponseEdit(i, &discordgo.WebhookEdit{
				Files: []*discordgo.File{{Name: "c.txt", ContentType: "text/plain", Reader: strings.NewReader("sea")}},
			})
			if err != nil {
				return fmt.Errorf("edit: %w", err)
			}
			return nil
		}()
	})
	p, err := srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "222", User: "5", Name: "play"})
	if err != nil {
		t.Fatal(err)
	}
	// The handler first, then the response: Wait shows the message as it
	// is then, the edit's file included.
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Message
	if m == nil || m.Content != "your export" || len(m.Attachments) != 2 {
		t.Fatalf("response = %+v", m)
	}
	checkAttachment(t, srv, m.Attachments[0], "222", "export.json", "application/json", export)
	if !m.Attachments[0].Ephemeral {
		t.Errorf("the attachment of an ephemeral message is not ephemeral")
	}
	if len(followUp.Attachments) != 1 {
		t.Fatalf("follow-up = %+v", followUp)
	}
	checkAttachment(t, srv, followUp.Attachments[0], "222", "b.txt", "text/plain", []byte("bee"))
	if len(edited.Attachments) != 2 || edited.Attachments[0].ID != m.Attachments[0].ID {
		t.Fatalf("edited attachments = %+v, want export.json kept and c.txt", edited.Attachments)
	}
	checkAttachment(t, srv, edited.Attachments[1], "222", "c.txt", "text/plain", []byte("sea"))
	stored, ok := srv.Message(m.ID)
	if !ok || len(stored.Attachments) != 2 {
		t.Fatalf("stored = %+v", stored)
	}
	noFailures(t, srv)

	// The wrong channel or name is not found, as on Discord's CDN.
	a := m.Attachments[0]
	for _, u := range []string{
		srv.URL() + "/attachments/999/" + a.ID + "/export.json",
		srv.URL() + "/attachments/222/" + a.ID + "/other.json",
		srv.URL() + "/attachments/222/1/export.json",
	} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", u, resp.StatusCode)
		}
	}
}

// part is a part of a hand-made multipart body.
type part struct {
	name, filename string
	body           []byte
}

func multipartBody(tb testing.TB, parts ...part) (string, []byte) {
	tb.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			tb.Fatal(err)
		}
		_, _ = w.Write(p.body)
	}
	if err := mw.Close(); err != nil {
		tb.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

func TestMultipartRefused(t *testing.T) {
	t.Parallel()
	srv, c := setup(t, fakediscord.Options{AckTimeout: time.Minute})
	p, in := pending(t, srv, c)
	callback := callbackURL(srv, in)
	payload := part{"payload_json", "", []byte(`{"type":4,"data":{"content":"x"}}`)}
	file := func(n int, size int) part {
		return part{fmt.Sprintf("files[%d]", n), "f.bin", bytes.Repeat([]byte{'a'}, size)}
	}
	var eleven []part
	for n := range 11 {
		eleven = append(eleven, file(n, 1))
	}
	post := func(ct string, body []byte) (int, int) {
		t.Helper()
		resp, err := http.Post(callback, ct, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct {
			Code int `json:"code"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Code
	}
	for _, tc := range []struct {
		name         string
		parts        []part
		status, code int
	}{
		{"no payload_json", []part{file(0, 3)}, 400, 50035},
		{"bad JSON", []part{{"payload_json", "", []byte(`{"type":4,`)}, file(0, 3)}, 400, 50109},
		{"two payloads", []part{payload, payload}, 400, 50035},
		{"eleven files", append([]part{payload}, eleven...), 400, 50035},
		{"file without a name", []part{payload, {"files[0]", "", []byte("x")}}, 400, 50035},
		{"same index twice", []part{payload, file(0, 1), file(0, 1)}, 400, 50035},
		{"file over 10 MiB", []part{payload, file(0, 10<<20+1)}, 413, 40005},
		{"empty message", []part{{"payload_json", "", []byte(`{"type":4,"data":{"content":""}}`)}}, 400, 50006},
	} {
		ct, body := multipartBody(t, tc.parts...)
		if st, code := post(ct, body); st != tc.status || code != tc.code {
			t.Errorf("%s: %d %d, want %d %d", tc.name, st, code, tc.status, tc.code)
		}
	}
	if st, code := post("multipart/form-data", []byte("x")); st != 400 || code != 50035 {
		t.Errorf("no boundary: %d %d, want 400 50035", st, code)
	}
	if st, code := post("multipart/form-data; boundary=zz", []byte("--zz\r\nbroken")); st != 400 || code != 50035 {
		t.Errorf("broken body: %d %d, want 400 50035", st, code)
	}
	if st, code := post("text/plain", []byte("x")); st != 400 || code != 50035 {
		t.Errorf("text/plain: %d %d, want 400 50035", st, code)
	}
	if n := len(srv.Failures()); n != 11 {
		t.Errorf("%d failures recorded, want 11", n)
	}
	// None of them answered the interaction: a good one still does, with a
	// file of exactly the limit.
	ct, body := multipartBody(t, payload, file(0, 10<<20))
	if st, _ := post(ct, body); st != http.StatusNoContent {
		t.Fatalf("good callback: %d", st)
	}
	r, err := p.Wait(ctxT(t)) // the 10 MiB bodies take long under -race
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Message.Attachments) != 1 || r.Message.Attachments[0].Size != 10<<20 {
		t.Errorf("attachments = %+v", r.Message.Attachments)
	}
}

func TestMultipartEndpointReply(t *testing.T) {
	t.Parallel()
	ep, srv, _ := httpSetup(t, fakediscord.Options{}, playCmd)
	ctx := ctxT(t)
	ep.handle(func(i *discordgo.Interaction) (int, any) {
		resp := &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "file"},
		}
		files := []*discordgo.File{{Name: "e.json", ContentType: "application/json", Reader: strings.NewReader("{}")}}
		ct, b, err := discordgo.MultipartBodyWithJSON(resp, files)
		if err != nil {
			return 500, err.Error()
		}
		return 200, multipartReply{ct, b}
	})
	_, r := answered(t, ctx)(srv.Slash(ctx, fakediscord.Slash{Guild: guild, Channel: "222", User: "333", Name: "play"}))
	if r.Message == nil || len(r.Message.Attachments) != 1 {
		t.Fatalf("response = %+v", r.Message)
	}
	checkAttachment(t, srv, r.Message.Attachments[0], "222", "e.json", "application/json", []byte("{}"))
	noFailures(t, srv)
}
