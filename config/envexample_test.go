package config_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/joho/godotenv"

	"github.com/lesclefsdutresor/clefs/config"
)

// TestEnvExample checks that .env.example lists every variable Load reads,
// nothing else, and that its values are the defaults.
func TestEnvExample(t *testing.T) {
	example, err := godotenv.Read("../.env.example")
	if err != nil {
		t.Fatalf("read .env.example: %v", err)
	}
	read := map[string]bool{}
	getenv := func(k string) string {
		read[k] = true
		if k == "DISCORD_TOKEN" {
			return "t"
		}
		return example[k]
	}
	got, err := config.Load(getenv)
	if err != nil {
		t.Fatalf("Load(.env.example): %v", err)
	}
	want := mustLoad(t, env("DISCORD_TOKEN", "t"))
	if !reflect.DeepEqual(got, want) {
		t.Errorf(".env.example values are not the defaults:\n got %+v\nwant %+v", got, want)
	}
	var missing, extra []string
	for k := range read {
		if _, ok := example[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range example {
		if !read[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf(".env.example: missing %v, unknown %v", missing, extra)
	}
}
