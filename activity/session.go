package activity

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// SessionLife is how long a session is valid.
const SessionLife = 15 * time.Minute

// sessionLabel derives the sessions' key from the client secret, so that
// the secret itself never signs anything.
const sessionLabel = "clefs activity session v1"

// session is what a session token proves: Discord said that user U is in
// instance I, in channel C of guild G. L is the user's Discord locale, E
// the expiry (Unix seconds).
type session struct {
	U string `json:"u"`
	G string `json:"g"`
	C string `json:"c"`
	I string `json:"i"`
	L string `json:"l"`
	E int64  `json:"e"`
	X int64  `json:"x,omitempty"` // a stream pass's: the session's end
}

// errSession is every reason a session token is refused: malformed, forged
// or expired. The page then authorizes again.
var errSession = errors.New("activity: bad or expired session")

// sign returns the token of s: base64url(payload JSON) "." base64url(HMAC-SHA256
// of the first part).
func sign(key []byte, s session) string {
	raw, _ := json.Marshal(s) // strings and an integer: cannot fail
	p := base64.RawURLEncoding.EncodeToString(raw)
	return p + "." + base64.RawURLEncoding.EncodeToString(mac(key, p))
}

// mac is HMAC-SHA256 of payload under key: a token's signature, and the
// sessions' key (the client secret's mac of sessionLabel).
func mac(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// verify returns the session token proves at now, or errSession.
func verify(key []byte, token string, now time.Time) (session, error) {
	p, sig, ok := strings.Cut(token, ".")
	if !ok || len(token) > 1024 {
		return session{}, errSession
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(key, p)) {
		return session{}, errSession
	}
	var s session
	d := json.NewDecoder(base64.NewDecoder(base64.RawURLEncoding, strings.NewReader(p)))
	d.DisallowUnknownFields()
	if d.Decode(&s) != nil || s.U == "" || s.G == "" || now.Unix() >= s.E {
		return session{}, errSession
	}
	return s, nil
}
