package fakediscord

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// Limits of the bodies the fake takes, as Discord's (documented in doc.go).
const (
	// maxJSONBody bounds an application/json body, and the payload_json
	// part of a multipart one.
	maxJSONBody = 1 << 20
	// maxMultipartBody bounds a whole multipart/form-data body.
	maxMultipartBody = 25 << 20
	// maxFileSize bounds one file: Discord's limit for a bot's upload to
	// a server without boosts.
	maxFileSize = 10 << 20
	// maxFiles bounds the files of one message.
	maxFiles = 10
)

// upload is a file of a request, not yet an attachment of a message.
type upload struct {
	filename, contentType string
	data                  []byte
}

// attachment is a file of a message. It is never modified once its message
// holds it (its ID and channel are set under Server.mu before that), so
// snapshots of the message share it.
type attachment struct {
	id, channel, filename, contentType string
	ephemeral                          bool
	data                               []byte
}

// url is where the fake serves the attachment's bytes, as Discord's CDN
// (cdn.discordapp.com/attachments/CHANNEL/ID/FILENAME).
func (s *Server) attachmentURL(a *attachment) string {
	return s.base + "/attachments/" + a.channel + "/" + a.id + "/" + url.PathEscape(a.filename)
}

func (s *Server) attachmentWire(a *attachment) map[string]any {
	u := s.attachmentURL(a)
	w := map[string]any{
		"id": a.id, "filename": a.filename, "size": len(a.data), "content_type": a.contentType,
		"url": u, "proxy_url": u,
	}
	if a.ephemeral {
		w["ephemeral"] = true
	}
	return w
}

func (s *Server) attachmentDiscordgo(a *attachment) *discordgo.MessageAttachment {
	u := s.attachmentURL(a)
	return &discordgo.MessageAttachment{
		ID: a.id, Filename: a.filename, Size: len(a.data), ContentType: a.contentType,
		URL: u, ProxyURL: u, Ephemeral: a.ephemeral,
	}
}

// registerLocked gives the new attachments of m (those apply just added,
// without an ID) their snowflake and channel, and serves them.
func (s *Server) registerLocked(m *message) {
	for i, a := range m.attachments {
		if a.id != "" {
			continue
		}
		a = &attachment{id: s.snowflake(), channel: m.channel, filename: a.filename,
			contentType: a.contentType, data: a.data, ephemeral: m.flags&flagEphemeral != 0}
		m.attachments[i] = a
		s.attachments[a.id] = a
	}
}

// Attachment returns the bytes of an attachment by ID, and whether the fake
// holds it. Tests read a file the bot sent with it, or by GETting the
// attachment's URL.
func (s *Server) Attachment(id string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.attachments[id]
	if !ok {
		return nil, false
	}
	return a.data, true
}

// getAttachment serves GET /attachments/{channel}/{id}/{filename}, as
// Discord's CDN: the bytes with their content type, 404 otherwise. It needs
// no authorization (the URL is the secret, as Discord's before signed URLs).
func (s *Server) getAttachment(w http.ResponseWriter, r *http.Request) {
	a, ok := lookup(s, s.attachments, r.PathValue("id"))
	if !ok || a.channel != r.PathValue("channel") || a.filename != r.PathValue("filename") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(a.data)))
	_, _ = w.Write(a.data)
}

// readMessageBody reads the body of a call that creates or edits a message:
// JSON (≤ 1 MiB), or multipart/form-data (≤ 25 MiB) whose payload_json part
// is the JSON and whose files[n] parts are files. It answers the error
// itself, as Discord would.
func (s *Server) readMessageBody(w http.ResponseWriter, r *http.Request, interactionID string) ([]byte, []upload, bool) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" && mt != "application/json" {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body",
			[]fieldErr{{"", "CONTENT_TYPE_INVALID", "Expected \"Content-Type\" header to be one of {'application/json', 'multipart/form-data'}."}}, interactionID)
		return nil, nil, false
	}
	if mt != "multipart/form-data" {
		b, ok := s.readBody(w, r, interactionID)
		return b, nil, ok
	}
	body, files, e := parseMultipart(http.MaxBytesReader(w, r.Body, maxMultipartBody), params["boundary"])
	if e != nil {
		s.fail(w, r, e.status, e.code, e.message, e.errs, interactionID)
		return nil, nil, false
	}
	return body, files, true
}

// readMessage reads a message to create or edit (readMessageBody) and
// checks it (parseMessage, flags among allowedFlags), answering the
// error itself.
func (s *Server) readMessage(w http.ResponseWriter, r *http.Request, interactionID string, allowedFlags int) (msgPatch, bool) {
	body, files, ok := s.readMessageBody(w, r, interactionID)
	if !ok {
		return msgPatch{}, false
	}
	patch, errs := parseMessage(body, "", allowedFlags)
	if len(errs) > 0 {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, interactionID)
		return msgPatch{}, false
	}
	patch.files = files
	return patch, true
}

var errTooLarge = &ackError{http.StatusRequestEntityTooLarge, 40005, "Request entity too large", nil}

// parseMultipart reads a multipart/form-data body as Discord does for a
// message: the payload_json part (required here: the fake takes no fields
// as separate parts) and at most maxFiles files[n] parts of at most
// maxFileSize bytes each, ordered by n. Other parts are ignored.
func parseMultipart(r io.Reader, boundary string) ([]byte, []upload, *ackError) {
	invalid := func(field, code, msg string) *ackError {
		return &ackError{http.StatusBadRequest, 50035, "Invalid Form Body", []fieldErr{{field, code, msg}}}
	}
	if boundary == "" {
		return nil, nil, invalid("", "CONTENT_TYPE_INVALID", "The multipart/form-data Content-Type has no boundary.")
	}
	mr := multipart.NewReader(r, boundary)
	var payload []byte
	files := map[int]upload{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, partErr(err)
		}
		name := p.FormName()
		switch {
		case name == "payload_json":
			if payload != nil {
				return nil, nil, invalid("payload_json", "DUPLICATE", "payload_json is given twice.")
			}
			b, e := readPart(p, maxJSONBody)
			if e != nil {
				return nil, nil, e
			}
			payload = b
		case strings.HasPrefix(name, "files[") && strings.HasSuffix(name, "]"):
			n, err := strconv.Atoi(name[len("files[") : len(name)-1])
			if err != nil || n < 0 || n >= maxFiles {
				return nil, nil, invalid(name, "BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length: files are files[0] to files[%d].", maxFiles, maxFiles-1))
			}
			if _, dup := files[n]; dup {
				return nil, nil, invalid(name, "DUPLICATE", name+" is given twice.")
			}
			fn := p.FileName()
			if fn == "" {
				return nil, nil, invalid(name, "BASE_TYPE_REQUIRED", "A file part needs a filename.")
			}
			b, e := readPart(p, maxFileSize)
			if e != nil {
				return nil, nil, e
			}
			files[n] = upload{filename: fn, contentType: cmp.Or(p.Header.Get("Content-Type"), "application/octet-stream"), data: b}
		default:
			// Discord ignores parts it does not know; so does the fake.
			if _, err := io.Copy(io.Discard, p); err != nil {
				return nil, nil, partErr(err)
			}
		}
	}
	if payload == nil {
		return nil, nil, invalid("payload_json", "BASE_TYPE_REQUIRED", "This field is required")
	}
	if !json.Valid(payload) {
		return nil, nil, &ackError{http.StatusBadRequest, 50109, "The request body contains invalid JSON.", nil}
	}
	var out []upload
	for n := range maxFiles {
		if f, ok := files[n]; ok {
			out = append(out, f)
		}
	}
	return payload, out, nil
}

// readPart reads a part of at most limit bytes.
func readPart(p *multipart.Part, limit int64) ([]byte, *ackError) {
	b, err := io.ReadAll(io.LimitReader(p, limit+1))
	if err != nil {
		return nil, partErr(err)
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

func partErr(err error) *ackError {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errTooLarge
	}
	return &ackError{http.StatusBadRequest, 50035, "Invalid Form Body", []fieldErr{{"", "MULTIPART_INVALID", "The multipart/form-data body is malformed: " + err.Error()}}}
}

// parseKept reads the "attachments" field of a message's JSON, which lists
// the attachments the message keeps after an edit. Entries whose id is not
// a string (Discord's references to the new files by index) are ignored:
// new files are always added.
func parseKept(raw json.RawMessage, path string) ([]string, []fieldErr) {
	if isNull(raw) {
		return []string{}, nil
	}
	var entries []struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, []fieldErr{{path, "BASE_TYPE_ARRAY", "Must be an array of attachment objects."}}
	}
	kept := []string{}
	for _, e := range entries {
		var id string
		if json.Unmarshal(e.ID, &id) == nil {
			kept = append(kept, id)
		}
	}
	return kept, nil
}
