package fakediscord

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEmbedLimits: an embed at each of Discord's limits (docs/the OpenAPI
// spec's maxLength, and the 6000 characters of all embeds) passes; one
// character more is refused, under the path Discord names.
func TestEmbedLimits(t *testing.T) {
	x := func(n int) string { return strings.Repeat("é", n) } // one character, two bytes
	type field struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	embed := func(edit func(m map[string]any)) json.RawMessage {
		m := map[string]any{"title": x(256), "description": x(4096), "url": "https://x/" + strings.Repeat("a", 2038),
			"footer": map[string]any{"text": x(100)}, "author": map[string]any{"name": x(100)},
			"fields": []field{{x(256), x(1024)}}}
		edit(m)
		b, err := json.Marshal([]any{m})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if errs := validateEmbeds(embed(func(map[string]any) {}), "embeds"); errs != nil {
		t.Fatalf("an embed at the limits: %+v", errs)
	}
	for name, c := range map[string]struct {
		edit func(m map[string]any)
		path string
	}{
		"title":       {func(m map[string]any) { m["title"] = x(257) }, "embeds.0.title"},
		"description": {func(m map[string]any) { m["description"] = x(4097) }, "embeds.0.description"},
		"url":         {func(m map[string]any) { m["url"] = "https://x/" + strings.Repeat("a", 2039) }, "embeds.0.url"},
		"field name":  {func(m map[string]any) { m["fields"] = []field{{x(257), "v"}} }, "embeds.0.fields.0.name"},
		"field value": {func(m map[string]any) { m["fields"] = []field{{"n", x(1025)}} }, "embeds.0.fields.0.value"},
		"footer":      {func(m map[string]any) { m["footer"] = map[string]any{"text": x(2049)} }, "embeds.0.footer.text"},
		"author":      {func(m map[string]any) { m["author"] = map[string]any{"name": x(257)} }, "embeds.0.author.name"},
		"26 fields":   {func(m map[string]any) { m["fields"] = make([]field, 26) }, "embeds.0.fields"},
		"6001 in all": {func(m map[string]any) { m["fields"] = []field{{x(256), x(1024)}, {"n", x(220)}} }, "embeds"},
	} {
		errs := validateEmbeds(embed(c.edit), "embeds")
		found := false
		for _, e := range errs {
			found = found || e.path == c.path
		}
		if !found {
			t.Errorf("%s past its limit: errors %+v, want one at %s", name, errs, c.path)
		}
	}
}
