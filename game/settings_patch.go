package game

import (
	"strconv"
	"strings"
	"time"
)

// SettingsPatch is a change of some of a guild's settings: nil fields keep
// their value.
type SettingsPatch struct {
	StartingBalance, DailyAmount *int64
	DailyCooldown                *time.Duration
	PublicPlays                  *bool
	Channel                      *uint64 // 0: any channel
	MaxStakeDay                  *int64  // the house's daily stake cap, cents; 0 none
	MinInterval                  *time.Duration
	RealityPlays                 *int
	RealityEvery                 *time.Duration
}

// Empty reports whether the patch changes nothing.
func (sp SettingsPatch) Empty() bool { return sp == SettingsPatch{} }

// Apply returns set with the patch applied.
func (sp SettingsPatch) Apply(set Settings) Settings {
	patch(&set.StartingBalance, sp.StartingBalance)
	patch(&set.DailyAmount, sp.DailyAmount)
	patch(&set.DailyCooldown, sp.DailyCooldown)
	patch(&set.PublicPlays, sp.PublicPlays)
	patch(&set.Channel, sp.Channel)
	patch(&set.House.MaxStakeDay, sp.MaxStakeDay)
	patch(&set.House.MinInterval, sp.MinInterval)
	patch(&set.House.RealityPlays, sp.RealityPlays)
	patch(&set.House.RealityEvery, sp.RealityEvery)
	return set
}

func patch[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// SettingsReasonSep separates, in a settings entry's reason, what changed
// (SettingsChanges) from the moderator's own words.
const SettingsReasonSep = " — "

// SettingsChanges describes what changed from old to set, for the
// moderator log (in English, as the log stores it): "daily amount 5.00 →
// 2.00; channel <#1> → any".
func SettingsChanges(old, set Settings) string {
	var parts []string
	change := func(name, a, b string) {
		if a != b {
			parts = append(parts, name+" "+a+" → "+b)
		}
	}
	cents := func(c int64, off string) string {
		if c == 0 && off != "" {
			return off
		}
		return FormatCents(c, English)
	}
	dur := func(d time.Duration) string {
		if d == 0 {
			return "off"
		}
		return d.String()
	}
	channel := func(c uint64) string {
		if c == 0 {
			return "any"
		}
		return "<#" + strconv.FormatUint(c, 10) + ">"
	}
	plays := map[bool]string{true: "public", false: "private"}
	oh, sh := old.House, set.House
	change("starting balance", cents(old.StartingBalance, ""), cents(set.StartingBalance, ""))
	change("daily amount", cents(old.DailyAmount, "off"), cents(set.DailyAmount, "off"))
	change("daily cooldown", dur(old.DailyCooldown), dur(set.DailyCooldown))
	change("plays", plays[old.PublicPlays], plays[set.PublicPlays])
	change("channel", channel(old.Channel), channel(set.Channel))
	change("max stake per day", cents(oh.MaxStakeDay, "none"), cents(sh.MaxStakeDay, "none"))
	change("min interval", dur(oh.MinInterval), dur(sh.MinInterval))
	change("reality check plays", strconv.Itoa(oh.RealityPlays), strconv.Itoa(sh.RealityPlays))
	change("reality check every", dur(oh.RealityEvery), dur(sh.RealityEvery))
	return strings.Join(parts, "; ")
}
