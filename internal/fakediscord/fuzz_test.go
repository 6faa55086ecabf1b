package fakediscord

import (
	"encoding/json"
	"testing"
)

// FuzzParseMessage checks that any payload is either accepted or refused
// with field errors, never a panic, and that an accepted content fits.
func FuzzParseMessage(f *testing.F) {
	f.Add([]byte(`{"content":"hi","components":[{"type":1,"components":[{"type":2,"style":1,"label":"a","custom_id":"x"}]}]}`))
	f.Add([]byte(`{"embeds":[{"title":"t","fields":[{"name":"n","value":"v"}]}],"flags":64}`))
	f.Add([]byte(`{"components":[{"type":1,"components":[{"type":3,"custom_id":"s","options":[]}]}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		p, errs := parseMessage(raw, "data", allowedResponseFlags)
		if len(errs) == 0 && p.content != nil && runeLen(*p.content) > 2000 {
			t.Fatalf("accepted %d characters", runeLen(*p.content))
		}
		_ = errorsJSON(errs)
		var m message
		m.apply(p)
		_ = m.empty()
	})
}

// FuzzValidateCommands checks that any bulk overwrite is accepted or refused, never a panic.
func FuzzValidateCommands(f *testing.F) {
	f.Add([]byte(`[{"name":"play","description":"Play","options":[{"type":1,"name":"x","description":"d"}]}]`))
	f.Add([]byte(`[{"name":"Play"}]`))
	f.Add([]byte(`[null]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cmds, errs := validateCommands(raw, false, true)
		if len(errs) == 0 {
			for _, c := range cmds {
				if c == nil || len(c.Name) == 0 {
					t.Fatalf("accepted a command without a name: %s", raw)
				}
			}
		}
	})
}

// FuzzSlashJSON checks that any control body is read or refused, never a
// panic, and that what is read has permissions a member can have.
func FuzzSlashJSON(f *testing.F) {
	f.Add([]byte(`{"guild":"1","user":"2","name":"admin","subcommand":"grant","perms":"moderator","options":{"user":"42","n":1.5}}`))
	f.Add([]byte(`{"user":"2","name":"play","perms":32,"options":[{"name":"a","value":null}]}`))
	f.Add([]byte(`{"perms":"-1","options":{"a":{"b":[1]}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var sl Slash
		if json.Unmarshal(raw, &sl) == nil && sl.Perms < 0 {
			t.Fatalf("negative perms %d from %s", sl.Perms, raw)
		}
		var c Click
		if json.Unmarshal(raw, &c) == nil && c.Perms < 0 {
			t.Fatalf("negative perms %d from %s", c.Perms, raw)
		}
	})
}
