package redisstore_test

import (
	"strings"
	"testing"

	"github.com/lesclefsdutresor/clefs/storage/redisstore"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"redis://localhost:6379/0", "redis://localhost:6379/0"},
		{"redis://u:hunter2@h:6379", "redis://u:xxxxx@h:6379"},
		{"rediss://:hunter2@h:6380/2", "rediss://:xxxxx@h:6380/2"},
		{"redis://user@h:6379", "redis://user@h:6379"},
		{"redis+cluster://u:hunter2@h:7000?addr=h2:7001", "redis+cluster://u:xxxxx@h:7000?addr=h2:7001"},
		{"redis+sentinel://h:26379?master_name=m&password=hunter2", "redis+sentinel://h:26379?master_name=m&password=xxxxx"},
		// Not URLs with a host: what could hold a secret goes.
		{"localhost:6379", "localhost:6379"},
		{"u:hunter2@h:6379", "xxxxx@h:6379"},
		{"redis://u:hunter2@h:bad/0", "redis://xxxxx@h:bad/0"},
		{"redis://h:bad?password=hunter2", "redis://h:bad?xxxxx"},
		{"redis://u:hunter2@h:bad?password=hunter2", "redis://xxxxx@h:bad?xxxxx"},
	}
	for _, tt := range tests {
		got := redisstore.RedactURL(tt.in)
		if got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "hunter2") {
			t.Errorf("RedactURL(%q) = %q shows the password", tt.in, got)
		}
	}
}

// A REDIS_URL that go-redis refuses must not come back whole in the error:
// url.Parse's errors quote their input.
func TestNewClientErrorHidesPassword(t *testing.T) {
	for _, u := range []string{
		"redis://u:hunter2@h:bad/0",
		"redis+cluster://u:hunter2@h:bad",
		"redis+sentinel://:hunter2@h:bad?master_name=m",
		"u:hunter2@h:6379",
	} {
		cl, err := redisstore.NewClient(u)
		if err == nil {
			cl.Close()
			t.Errorf("NewClient(%q) succeeded", u)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewClient(%q): %v", u, err)
		}
	}
}
