package cli

import (
	"cmp"
	"math"
	"strconv"
	"time"
)

// Discord's timestamps (<t:UNIX:STYLE>) as a Discord client shows them, in
// the session's language and time zone: each client renders them itself,
// so the bot's message carries only the instant.

// view is what rendering a message depends on besides the message: the
// session's language, its clock's now (for relative times) and the time
// zone of the person at the terminal.
type view struct {
	lang tryLang
	now  time.Time
	loc  *time.Location
}

// French names of the months and the weekdays (time.Format has the English).
var (
	monthsFR = [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	daysFR   = [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}
)

// discordTime renders t in one of Discord's timestamp styles, as its
// en-US and French clients do:
//
//	t  3:04 PM                              15:04
//	T  3:04:05 PM                           15:04:05
//	d  12/02/2026                           02/12/2026
//	D  December 2, 2026                     2 décembre 2026
//	f  December 2, 2026 3:04 PM             2 décembre 2026 15:04   (also no style)
//	F  Wednesday, December 2, 2026 3:04 PM  mercredi 2 décembre 2026 15:04
//	R  in 3 hours, 5 minutes ago            dans 3 heures, il y a 5 minutes
func discordTime(t time.Time, style string, v view) string {
	if style == "R" {
		return relativeTime(t.Sub(v.now), v.lang)
	}
	t = t.In(cmp.Or(v.loc, time.Local))
	short, long := t.Format("3:04 PM"), t.Format("3:04:05 PM")
	date, numeric, weekday := t.Format("January 2, 2006"), t.Format("01/02/2006"), t.Format("Monday, ")
	if v.lang == langFR {
		short, long = t.Format("15:04"), t.Format("15:04:05")
		date = strconv.Itoa(t.Day()) + " " + monthsFR[t.Month()-1] + " " + strconv.Itoa(t.Year())
		numeric, weekday = t.Format("02/01/2006"), daysFR[t.Weekday()]+" "
	}
	switch style {
	case "t":
		return short
	case "T":
		return long
	case "d":
		return numeric
	case "D":
		return date
	case "F":
		return weekday + date + " " + short
	}
	return date + " " + short
}

// relativeTime says a duration from now as Discord's relative timestamps
// do, always with a number: seconds below a minute, minutes below an
// hour, hours below a day, days below a month, months below a year, then
// years; each rounded to the nearest of its unit, and a unit that rounds
// up to the next one's size (59.6 minutes) said in the next one.
func relativeTime(d time.Duration, l tryLang) string {
	sec := math.Abs(d.Seconds())
	const day = 86400.0
	units := []struct {
		size, next float64 // the unit in seconds, and how many make the next
		key        string  // its message, plural
	}{
		{1, 60, "time_seconds"},
		{60, 60, "time_minutes"},
		{3600, 24, "time_hours"},
		{day, 30, "time_days"},
		{day * 365.25 / 12, 12, "time_months"},
		{day * 365.25, math.Inf(1), "time_years"},
	}
	var n int64
	var key string
	for _, u := range units {
		n, key = int64(math.Round(sec/u.size)), u.key
		if float64(n) < u.next {
			break
		}
	}
	if d < 0 {
		return l.t("time_ago", map[string]any{"Span": l.p(key, n)})
	}
	return l.t("time_in", map[string]any{"Span": l.p(key, n)})
}
