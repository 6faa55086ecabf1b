package bot

import (
	"testing"

	"github.com/bwmarrin/discordgo"
)

func TestDecodeLeniently(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		ok     bool
		locale discordgo.Locale
	}{
		{`{"id":"123","token":"tok","type":2,"locale":"fr","member":{"permissions":32}}`, true, "fr"},
		{`{"id":123,"token":"tok","type":3,"locale":7}`, true, ""},
		{`{"id":"123","token":"tok","type":"x","application_id":5}`, true, ""},
		{`{"id":"x","token":"tok"}`, false, ""},
		{`{"id":"123","token":7}`, false, ""},
		{`{"id":"123"}`, false, ""},
		{`not json`, false, ""},
	} {
		i, err := decodeLeniently([]byte(tc.raw))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.raw, err)
			continue
		}
		if tc.ok && (i.ID != "123" || i.Token != "tok" || i.Locale != tc.locale) {
			t.Errorf("%s: decoded %+v", tc.raw, i)
		}
	}
	if a := apology("fr"); a.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || a.Data.Content == apology("en-US").Data.Content {
		t.Fatalf("apology: %+v", a.Data)
	}
}
