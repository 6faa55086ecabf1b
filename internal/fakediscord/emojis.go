package fakediscord

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/gif"  // Discord takes GIF emojis
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// Discord's limits on application emojis.
const (
	// MaxEmojiBytes is the largest emoji image Discord takes, decoded.
	MaxEmojiBytes = 256 << 10
	// MaxApplicationEmojis is how many emojis an application may own.
	MaxApplicationEmojis = 2000
)

// emojiName is what Discord accepts as an emoji's name.
var emojiName = regexp.MustCompile(`^[A-Za-z0-9_]{2,32}$`)

// appEmoji is an application emoji the fake holds.
type appEmoji struct {
	id, name string
	image    []byte // the decoded image, as uploaded
}

// Emojis returns the application's emojis, in creation order, as Discord
// would list them.
func (s *Server) Emojis() []*discordgo.Emoji {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*discordgo.Emoji, len(s.emojis))
	for i, e := range s.emojis {
		out[i] = s.emojiObject(e)
	}
	return out
}

// EmojiImage returns the image uploaded for the emoji of that ID, nil if
// there is none.
func (s *Server) EmojiImage(id string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.emojiLocked(id); e != nil {
		return slices.Clone(e.image)
	}
	return nil
}

// EmojiCreates returns how many emojis were created so far (successful
// POST /applications/{app}/emojis).
func (s *Server) EmojiCreates() int { return read(s, &s.emojiCreates) }

// SetRefuseEmojis makes the fake refuse (true) or accept (false) the
// creation of application emojis from now on: refused, POST
// /applications/{app}/emojis answers 403 Missing Permissions (recorded as
// a Failure), as Discord would to a token that may not manage the
// application's emojis; listing still works.
func (s *Server) SetRefuseEmojis(refuse bool) { s.locked(func() { s.refuseEmojis = refuse }) }

// emojiObject is e as Discord's JSON shows it; call with s.mu held or on
// an emoji no longer shared.
func (s *Server) emojiObject(e *appEmoji) *discordgo.Emoji {
	u := &discordgo.User{ID: s.botID, Username: botName, Discriminator: "0", Bot: true}
	return &discordgo.Emoji{ID: e.id, Name: e.name, Roles: []string{}, User: u, RequireColons: true, Available: true}
}

// emojiLocked returns the emoji of that ID, nil if none.
func (s *Server) emojiLocked(id string) *appEmoji {
	if i := slices.IndexFunc(s.emojis, func(e *appEmoji) bool { return e.id == id }); i >= 0 {
		return s.emojis[i]
	}
	return nil
}

// nameTakenLocked reports whether another emoji than id has that name.
func (s *Server) nameTakenLocked(name, id string) bool {
	return slices.ContainsFunc(s.emojis, func(e *appEmoji) bool { return e.name == name && e.id != id })
}

var errEmojiNameTaken = []fieldErr{{"name", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Emoji name already taken."}}

func (s *Server) getEmojis(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"items": s.Emojis()})
}

func (s *Server) getEmoji(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	e := s.emojiLocked(r.PathValue("emoji"))
	var out *discordgo.Emoji
	if e != nil {
		out = s.emojiObject(e)
	}
	s.mu.Unlock()
	if e == nil {
		s.fail(w, r, http.StatusNotFound, 10014, "Unknown Emoji", nil, "")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// emojiBody is the JSON of a create or a modify.
type emojiBody struct {
	Name  *string `json:"name"`
	Image *string `json:"image"`
}

// checkEmojiName returns the field errors of a name.
func checkEmojiName(name string) []fieldErr {
	if n := len(name); n < 2 || n > 32 {
		return []fieldErr{{"name", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length."}}
	}
	if !emojiName.MatchString(name) {
		return []fieldErr{{"name", "STRING_TYPE_REGEX", "String value did not match validation regex."}}
	}
	return nil
}

// decodeEmojiImage checks a data URI "data:image/png;base64,…" and returns
// the image's bytes, or the field errors.
func decodeEmojiImage(uri string) ([]byte, []fieldErr) {
	bad := []fieldErr{{"image", "IMAGE_INVALID", "Invalid image data"}}
	head, data, ok := strings.Cut(uri, ",")
	mime, enc, _ := strings.Cut(strings.TrimPrefix(head, "data:"), ";")
	if !ok || !strings.HasPrefix(head, "data:") || enc != "base64" ||
		(mime != "image/png" && mime != "image/jpeg" && mime != "image/gif" && mime != "image/webp") {
		return nil, bad
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, bad
	}
	if len(b) > MaxEmojiBytes {
		return nil, []fieldErr{{"image", "BINARY_TYPE_MAX_SIZE", "File cannot be larger than 256.0 kb."}}
	}
	if _, _, err := image.Decode(bytes.NewReader(b)); err != nil {
		return nil, bad
	}
	return b, nil
}

// emojiRequest checks the application of a POST or PATCH and decodes its
// body; on a refusal it has answered and returns false.
func (s *Server) emojiRequest(w http.ResponseWriter, r *http.Request) (emojiBody, bool) {
	var body emojiBody
	raw, ok := s.readBody(w, r, "")
	if ok && json.Unmarshal(raw, &body) != nil {
		s.fail(w, r, http.StatusBadRequest, 50109, "The request body contains invalid JSON.", nil, "")
		return body, false
	}
	return body, ok
}

func (s *Server) postEmoji(w http.ResponseWriter, r *http.Request) {
	body, ok := s.emojiRequest(w, r)
	if !ok {
		return
	}
	var errs, ierrs []fieldErr
	var img []byte
	if body.Name == nil {
		errs = append(errs, fieldErr{"name", "BASE_TYPE_REQUIRED", "This field is required"})
	} else {
		errs = checkEmojiName(*body.Name)
	}
	if body.Image == nil {
		errs = append(errs, fieldErr{"image", "BASE_TYPE_REQUIRED", "This field is required"})
	} else {
		img, ierrs = decodeEmojiImage(*body.Image)
		errs = append(errs, ierrs...)
	}
	if len(errs) > 0 {
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, "")
		return
	}
	s.mu.Lock()
	refuse, taken, full := s.refuseEmojis, s.nameTakenLocked(*body.Name, ""), len(s.emojis) >= MaxApplicationEmojis
	var out *discordgo.Emoji
	if !refuse && !taken && !full {
		e := &appEmoji{id: s.snowflake(), name: *body.Name, image: img}
		s.emojis = append(s.emojis, e)
		s.emojiCreates++
		out = s.emojiObject(e)
	}
	s.mu.Unlock()
	switch {
	case refuse:
		s.fail(w, r, http.StatusForbidden, 50013, "Missing Permissions", nil, "")
	case taken:
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errEmojiNameTaken, "")
	case full:
		s.fail(w, r, http.StatusBadRequest, 30008, "Maximum number of emojis reached (2000)", nil, "")
	default:
		s.log.Info("application emoji created", "name", out.Name, "id", out.ID, "bytes", len(img))
		writeJSON(w, http.StatusCreated, out)
	}
}

// patchEmoji renames an emoji; without a name it answers the emoji, as
// Discord does.
func (s *Server) patchEmoji(w http.ResponseWriter, r *http.Request) {
	body, ok := s.emojiRequest(w, r)
	if !ok {
		return
	}
	var errs []fieldErr
	if body.Name != nil {
		errs = checkEmojiName(*body.Name)
	}
	s.mu.Lock()
	e := s.emojiLocked(r.PathValue("emoji"))
	rename := e != nil && body.Name != nil && errs == nil
	taken := rename && s.nameTakenLocked(*body.Name, e.id)
	if rename && !taken {
		e.name = *body.Name
	}
	var out *discordgo.Emoji
	if e != nil {
		out = s.emojiObject(e)
	}
	s.mu.Unlock()
	switch {
	case e == nil:
		s.fail(w, r, http.StatusNotFound, 10014, "Unknown Emoji", nil, "")
	case errs != nil:
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errs, "")
	case taken:
		s.fail(w, r, http.StatusBadRequest, 50035, "Invalid Form Body", errEmojiNameTaken, "")
	default:
		writeJSON(w, http.StatusOK, out)
	}
}

func (s *Server) deleteEmoji(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	e := s.emojiLocked(r.PathValue("emoji"))
	s.emojis = slices.DeleteFunc(s.emojis, func(x *appEmoji) bool { return x == e })
	s.mu.Unlock()
	if e == nil {
		s.fail(w, r, http.StatusNotFound, 10014, "Unknown Emoji", nil, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
