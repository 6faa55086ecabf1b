package wire

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/bwmarrin/discordgo"
)

// maxDepth bounds the nesting the decoder follows, as encoding/json does.
const maxDepth = 10000

// SyntaxError is a payload that is not valid JSON, or a value of the wrong
// type for a field the decoder reads.
type SyntaxError struct {
	Offset int    // byte offset in the payload
	Msg    string // what was wrong
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("wire: %s at offset %d", e.Msg, e.Offset)
}

// arena holds the bytes of the strings a decode returns, each string a
// slice of it: a payload's strings cost one allocation or two rather than
// one each, and the bytes skipped (most of a click's message) are never
// copied. Bytes once written are never written again: a chunk is only
// appended to within its capacity, and a new chunk replaces a full one,
// so the strings stay immutable.
type arena struct{ buf []byte }

// arenaChunk is the size of an arena's chunks: the strings of a slash
// command's payload (ids, token, names, locale, permissions: 250 to 400
// bytes) fit in one.
const arenaChunk = 512

// string returns b as a string stored in the arena.
func (a *arena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, max(arenaChunk, len(b)))
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[n], len(b))
}

// scanner reads JSON values from b, strictly (RFC 8259, as encoding/json).
type scanner struct {
	b     []byte
	strs  *arena // where the strings read are kept; nil: one allocation each
	p     int
	depth int
	tmp   []byte // scratch for unescaping keys

	keepMessage func(*discordgo.Interaction) bool // Decoder.KeepMessage
}

func (s *scanner) fail(msg string) error { return &SyntaxError{Offset: s.p, Msg: msg} }

func (s *scanner) failf(format string, a ...any) error {
	return &SyntaxError{Offset: s.p, Msg: fmt.Sprintf(format, a...)}
}

func (s *scanner) ws() {
	for s.p < len(s.b) {
		switch s.b[s.p] {
		case ' ', '\t', '\n', '\r':
			s.p++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.p < len(s.b) && s.b[s.p] > ' ' { // no space: the usual case, inlined
		return s.b[s.p]
	}
	s.ws()
	if s.p < len(s.b) {
		return s.b[s.p]
	}
	return 0
}

// end checks that nothing but spaces follows the top-level value.
func (s *scanner) end() error {
	if s.ws(); s.p < len(s.b) {
		return s.fail("data after the top-level value")
	}
	return nil
}

// null consumes a null literal if one comes next.
func (s *scanner) null() (bool, error) {
	if s.peek() != 'n' {
		return false, nil
	}
	return true, s.literal("null")
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.p < len(lit) || string(s.b[s.p:s.p+len(lit)]) != lit {
		return s.fail("invalid literal")
	}
	s.p += len(lit)
	return nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return s.fail("nesting too deep")
	}
	return nil
}

// object reads an object, calling field for each key with the scanner on
// the key's value; field must consume the value. A null object calls
// nothing.
func (s *scanner) object(field func(key []byte) error) error {
	switch s.peek() {
	case 'n':
		return s.literal("null")
	case '{':
	default:
		return s.fail("expected an object")
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.p++
	if s.peek() == '}' {
		s.p++
		s.depth--
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.fail("expected a key")
		}
		key, err := s.key()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.fail("expected ':'")
		}
		s.p++
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.p++
		case '}':
			s.p++
			s.depth--
			return nil
		default:
			return s.fail("expected ',' or '}'")
		}
	}
}

// array reads an array, calling elem with the scanner on each element;
// elem must consume it. A null array calls nothing and reports null.
func (s *scanner) array(elem func() error) (isNull bool, err error) {
	switch s.peek() {
	case 'n':
		return true, s.literal("null")
	case '[':
	default:
		return false, s.fail("expected an array")
	}
	if err := s.enter(); err != nil {
		return false, err
	}
	s.p++
	if s.peek() == ']' {
		s.p++
		s.depth--
		return false, nil
	}
	for {
		if err := elem(); err != nil {
			return false, err
		}
		switch s.peek() {
		case ',':
			s.p++
		case ']':
			s.p++
			s.depth--
			return false, nil
		default:
			return false, s.fail("expected ',' or ']'")
		}
	}
}

// key reads an object key. The bytes are valid until the next key.
func (s *scanner) key() ([]byte, error) {
	if seg, ok := s.plain(); ok {
		return seg, nil
	}
	var err error
	s.tmp, err = s.appendString(s.tmp[:0])
	return s.tmp, err
}

// str reads a string, or null as "".
func (s *scanner) str() (string, error) {
	switch s.peek() {
	case '"':
	case 'n':
		return "", s.literal("null")
	default:
		return "", s.fail("expected a string")
	}
	if seg, ok := s.plain(); ok {
		return s.string(seg), nil
	}
	b, err := s.appendString(nil) // not s.tmp: it may hold the key being read
	return s.string(b), err
}

// string returns b as a string, from the arena when the scanner has one.
func (s *scanner) string(b []byte) string {
	if s.strs == nil {
		return string(b)
	}
	return s.strs.string(b)
}

// plain reads the string at s.p (on its opening quote) when it needs no
// unescaping: no escape, no control character, valid UTF-8. Otherwise it
// consumes nothing.
func (s *scanner) plain() ([]byte, bool) {
	start := s.p + 1
	i, high := skipPlain(s.b, start)
	for ; i < len(s.b); i++ {
		c := s.b[i]
		switch {
		case c == '"':
			seg := s.b[start:i]
			if high && !utf8.Valid(seg) {
				return nil, false
			}
			s.p = i + 1
			return seg, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return nil, false
}

// skipPlain returns the index of the first 8-byte word at or after i that
// holds a quote, a backslash or a control character (or where fewer than
// 8 bytes are left), reading a word at a time; high tells whether a byte
// skipped was not ASCII.
func skipPlain(b []byte, i int) (next int, high bool) {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	var hi uint64
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, bs := w^(ones*'"'), w^(ones*'\\')
		// A byte is zero in (x − ones) & ^x & tops only where x had a zero
		// byte (or a byte below n for x − ones·n), the classic test.
		if ((w-ones*0x20)|(q-ones)|(bs-ones))&^w&tops != 0 {
			break
		}
		hi |= w
	}
	return i, hi&tops != 0
}

// appendString reads the string at s.p (on its opening quote), unescaped,
// invalid UTF-8 replaced by U+FFFD as encoding/json does.
func (s *scanner) appendString(dst []byte) ([]byte, error) {
	s.p++ // opening quote
	for s.p < len(s.b) {
		c := s.b[s.p]
		switch {
		case c == '"':
			s.p++
			return dst, nil
		case c < 0x20:
			return dst, s.fail("control character in string")
		case c == '\\':
			if s.p+1 >= len(s.b) {
				return dst, s.fail("unterminated string")
			}
			e := s.b[s.p+1]
			s.p += 2
			switch e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := s.hex4()
				if !ok {
					return dst, s.fail("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// A pair if a \u low surrogate follows; else U+FFFD.
					r2 := rune(-1)
					if s.p+1 < len(s.b) && s.b[s.p] == '\\' && s.b[s.p+1] == 'u' {
						save := s.p
						s.p += 2
						var ok2 bool
						if r2, ok2 = s.hex4(); !ok2 {
							return dst, s.fail("invalid \\u escape")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							continue
						}
						s.p = save // not a pair: the second escape is read on its own
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
			default:
				return dst, s.fail("invalid escape")
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			s.p++
		default:
			r, size := utf8.DecodeRune(s.b[s.p:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, "\uFFFD"...)
			} else {
				dst = append(dst, s.b[s.p:s.p+size]...)
			}
			s.p += size
		}
	}
	return dst, s.fail("unterminated string")
}

func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.p < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.p : s.p+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.p += 4
	return r, true
}

// number reads a JSON number literal and returns its bytes.
func (s *scanner) number() ([]byte, error) {
	start := s.p
	b := s.b
	i := s.p
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		s.p = i
		return nil, s.fail("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		d := i + 1
		if i = digits(b, d); i == d {
			s.p = i
			return nil, s.fail("invalid number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		d := i + 1
		if d < len(b) && (b[d] == '+' || b[d] == '-') {
			d++
		}
		if i = digits(b, d); i == d {
			s.p = i
			return nil, s.fail("invalid number")
		}
	}
	s.p = i
	return b[start:i], nil
}

// digits returns the index after the run of decimal digits at i.
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// integer reads an integer literal of at most bits bits, signed or not;
// null reports ok false.
func (s *scanner) integer(bits int, signed bool) (n int64, u uint64, ok bool, err error) {
	switch c := s.peek(); {
	case c == 'n':
		return 0, 0, false, s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
	default:
		return 0, 0, false, s.fail("expected a number")
	}
	at := s.p
	lit, err := s.number()
	if err != nil {
		return 0, 0, false, err
	}
	if signed {
		n, err = strconv.ParseInt(string(lit), 10, bits)
	} else {
		u, err = strconv.ParseUint(string(lit), 10, bits)
	}
	if err != nil {
		s.p = at
		return 0, 0, false, s.failf("number %s does not fit the field", lit)
	}
	return n, u, true, nil
}

// intField reads a signed integer field; null leaves it unchanged.
func intField[T ~int | ~int64](s *scanner, v *T) error {
	n, _, ok, err := s.integer(strconv.IntSize, true)
	if ok {
		*v = T(n)
	}
	return err
}

// uintField reads an unsigned integer field of bits bits; null leaves it
// unchanged.
func uintField[T ~uint | ~uint8](s *scanner, v *T, bits int) error {
	_, u, ok, err := s.integer(bits, false)
	if ok {
		*v = T(u)
	}
	return err
}

// boolean reads true or false; null leaves *v unchanged.
func (s *scanner) boolean(v *bool) error {
	switch s.peek() {
	case 't':
		*v = true
		return s.literal("true")
	case 'f':
		*v = false
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.fail("expected a boolean")
}

// stringInt64 reads an integer written as a string ("123"), the ",string"
// encoding of encoding/json; null, or the string "null", leaves *v
// unchanged, as there.
func (s *scanner) stringInt64(v *int64) error {
	if n, err := s.null(); n || err != nil {
		return err
	}
	if s.peek() != '"' {
		return s.fail("expected an integer in a string")
	}
	at := s.p
	str, err := s.str()
	if err != nil || str == "null" {
		return err
	}
	n, err := strconv.ParseInt(str, 10, 64)
	if err != nil || !quotedInteger(str) {
		s.p = at
		return s.failf("%q is not an integer", str)
	}
	*v = n
	return nil
}

// quotedInteger reports whether encoding/json takes s as a ",string"
// integer: it must start with '-' or a digit, then strconv decides ("01"
// passes, "+1" does not).
func quotedInteger(s string) bool {
	return s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9')
}

// skip reads and discards any value, checking it is valid JSON.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '{':
		return s.skipContainer(true)
	case c == '[':
		return s.skipContainer(false)
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		_, err := s.number()
		return err
	case c == 0 && s.p >= len(s.b):
		return s.fail("unexpected end of input")
	}
	return s.fail("invalid character")
}

// skipContainer skips the object (obj) or array at s.p, on its opening
// bracket, checking it as object, array and skip would, without their
// callbacks: a skipped key needs no decoding.
func (s *scanner) skipContainer(obj bool) error {
	end, expected := byte(']'), "expected ',' or ']'"
	if obj {
		end, expected = '}', "expected ',' or '}'"
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.p++
	if s.peek() == end {
		s.p++
		s.depth--
		return nil
	}
	for {
		if obj {
			if s.peek() != '"' {
				return s.fail("expected a key")
			}
			if err := s.skipString(); err != nil {
				return err
			}
			if s.peek() != ':' {
				return s.fail("expected ':'")
			}
			s.p++
		}
		if err := s.skip(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.p++
		case end:
			s.p++
			s.depth--
			return nil
		default:
			return s.fail(expected)
		}
	}
}

func (s *scanner) skipString() error {
	i, _ := skipPlain(s.b, s.p+1)
	for ; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.p = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(s.b) {
				s.p = i
				return s.fail("unterminated string")
			}
			switch s.b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				s.p = i + 2
				if _, ok := s.hex4(); !ok {
					return s.fail("invalid \\u escape")
				}
				i = s.p - 1
			default:
				s.p = i
				return s.fail("invalid escape")
			}
		case c < 0x20:
			s.p = i
			return s.fail("control character in string")
		}
	}
	s.p = len(s.b)
	return s.fail("unterminated string")
}

// raw skips a value and returns its bytes.
func (s *scanner) raw() ([]byte, error) {
	s.ws()
	start := s.p
	err := s.skip()
	return s.b[start:s.p], err
}

// sub returns a scanner over the value raw, a slice of s.b that raw returned.
func (s *scanner) sub(raw []byte) scanner {
	return scanner{b: raw, depth: s.depth, strs: s.strs}
}

// any reads a value as encoding/json does into an interface{}: string,
// float64, bool, nil, or for objects and arrays map[string]any and []any.
func (s *scanner) any() (any, error) {
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case c == 't' || c == 'f':
		var b bool
		err := s.boolean(&b)
		return b, err
	case c == 'n':
		return nil, s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		at := s.p
		lit, err := s.number()
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(string(lit), 64)
		if err != nil {
			s.p = at
			return nil, s.failf("number %s out of range", lit)
		}
		return f, nil
	}
	raw, err := s.raw() // objects and arrays: rare in options; the standard way
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("wire: decode value: %w", err)
	}
	return v, nil
}

// fold returns the name in names that key matches case-insensitively, as
// encoding/json matches keys to fields when no name matches exactly, or nil.
func fold(key []byte, names []string) []byte {
	folds := false // only upper-case ASCII and non-ASCII runes can fold to a name
	for _, c := range key {
		if 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
			folds = true
			break
		}
	}
	if !folds {
		return nil
	}
	for _, n := range names {
		if equalFold(key, n) {
			return []byte(n)
		}
	}
	return nil
}

// equalFold is bytes.EqualFold(key, name) for a name of lower-case ASCII
// letters, digits and '_': Unicode's simple folding maps only K (Kelvin
// sign) to k and ſ (long s) to s among non-ASCII runes.
func equalFold(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); {
		if j >= len(name) {
			return false
		}
		c := key[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != name[j] {
				return false
			}
			i++
			j++
			continue
		}
		r, size := utf8.DecodeRune(key[i:])
		switch {
		case r == '\u212A' && name[j] == 'k', r == '\u017F' && name[j] == 's':
		default:
			return false
		}
		i += size
		j++
	}
	return j == len(name)
}
