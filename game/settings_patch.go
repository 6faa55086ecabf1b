package game

import (
	"fmt"
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

// patch sets *dst to *v, unless v is nil.
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
	amount := func(name string, a, b int64, off string) {
		if a == b {
			return
		}
		f := func(c int64) string {
			if c == 0 && off != "" {
				return off
			}
			return FormatCents(c, English)
		}
		parts = append(parts, name+" "+f(a)+" → "+f(b))
	}
	dur := func(name string, a, b time.Duration) {
		if a == b {
			return
		}
		f := func(d time.Duration) string {
			if d == 0 {
				return "off"
			}
			return d.String()
		}
		parts = append(parts, name+" "+f(a)+" → "+f(b))
	}
	amount("starting balance", old.StartingBalance, set.StartingBalance, "")
	amount("daily amount", old.DailyAmount, set.DailyAmount, "off")
	dur("daily cooldown", old.DailyCooldown, set.DailyCooldown)
	if old.PublicPlays != set.PublicPlays {
		onOff := map[bool]string{true: "public", false: "private"}
		parts = append(parts, "plays "+onOff[old.PublicPlays]+" → "+onOff[set.PublicPlays])
	}
	if old.Channel != set.Channel {
		ch := func(c uint64) string {
			if c == 0 {
				return "any"
			}
			return "<#" + strconv.FormatUint(c, 10) + ">"
		}
		parts = append(parts, "channel "+ch(old.Channel)+" → "+ch(set.Channel))
	}
	amount("max stake per day", old.House.MaxStakeDay, set.House.MaxStakeDay, "none")
	dur("min interval", old.House.MinInterval, set.House.MinInterval)
	if old.House.RealityPlays != set.House.RealityPlays {
		parts = append(parts, fmt.Sprintf("reality check plays %d → %d", old.House.RealityPlays, set.House.RealityPlays))
	}
	dur("reality check every", old.House.RealityEvery, set.House.RealityEvery)
	return strings.Join(parts, "; ")
}
