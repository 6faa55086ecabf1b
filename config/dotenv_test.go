package config

import (
	"reflect"
	"testing"
)

func TestUnknownKeys(t *testing.T) {
	got := UnknownKeys(map[string]string{
		"REDIS_ULR": "redis://x", "DAILY_AMONT": "3", "DISCORD_TOKEN": "t", "SHARD_ID": "0",
		"EMOJI_HIDDEN": "x", "redis_url": "y", "COMPLETELY_ELSE": "z",
	})
	want := []Unknown{
		{Key: "COMPLETELY_ELSE"},
		{Key: "DAILY_AMONT", Closest: "DAILY_AMOUNT"},
		{Key: "REDIS_ULR", Closest: "REDIS_URL"},
		{Key: "redis_url", Closest: "REDIS_URL"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnknownKeys = %+v, want %+v", got, want)
	}
}
