package storage

import "time"

// Timestamp returns t as stores keep it: UTC, whole milliseconds. Stores
// round every time they record so that an export round-trips exactly.
func Timestamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}
