package ingestion

import (
	"strings"
	"testing"
	"time"
)

func TestParseCronErrors(t *testing.T) {
	for _, tt := range []struct{ spec, want string }{
		{"* * * *", "must have 5 fields"},
		{"* * * * * *", "must have 5 fields"},
		{"60 * * * *", "minute: value 60 out of range 0-59"},
		{"* 24 * * *", "hour: value 24 out of range 0-23"},
		{"* * 0 * *", "day of month: value 0 out of range 1-31"},
		{"* * * 13 *", "month: value 13 out of range 1-12"},
		{"* * * * 8", "day of week: value 8 out of range 0-7"},
		{"*/0 * * * *", `bad step "0"`},
		{"5-1 * * * *", `range "5-1" ends before it starts`},
		{"x * * * *", `bad value "x"`},
		{"@sometimes", "must have 5 fields"},
	} {
		_, err := ParseCron(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseCron(%q) error = %v, want one containing %q", tt.spec, err, tt.want)
		}
	}
}

func TestCronNext(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	utc := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	inParis := func(s string) time.Time {
		t.Helper()
		v, err := time.ParseInLocation("2006-01-02 15:04", s, paris)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tt := range []struct {
		spec       string
		from, want time.Time
	}{
		{"* * * * *", utc("2026-03-01 10:00"), utc("2026-03-01 10:01")},
		{"0 0 * * *", utc("2026-03-01 10:00"), utc("2026-03-02 00:00")},
		{"@daily", utc("2026-03-01 23:59"), utc("2026-03-02 00:00")},
		{"@hourly", utc("2026-03-01 10:30"), utc("2026-03-01 11:00")},
		{"*/15 * * * *", utc("2026-03-01 10:16"), utc("2026-03-01 10:30")},
		{"5-20/5 9 * * *", utc("2026-03-01 09:12"), utc("2026-03-01 09:15")},
		{"0 9,17 * * MON-FRI", utc("2026-02-27 17:00"), utc("2026-03-02 09:00")}, // Friday evening to Monday
		{"0 0 * * 7", utc("2026-03-01 00:00"), utc("2026-03-08 00:00")},          // 7 is Sunday
		{"0 0 1 JAN *", utc("2026-03-01 00:00"), utc("2027-01-01 00:00")},
		{"0 0 29 2 *", utc("2026-03-01 00:00"), utc("2028-02-29 00:00")},
		// Both day fields restricted: either matches (the 13th, or a Friday).
		{"0 0 13 * 5", utc("2026-03-01 00:00"), utc("2026-03-06 00:00")},
		{"0 0 31 2 *", utc("2026-03-01 00:00"), time.Time{}},
		// In the schedule's zone; 02:30 does not exist on 29 March 2026 in Paris.
		{"30 2 * * *", inParis("2026-03-28 03:00"), inParis("2026-03-30 02:30")},
		{"0 8 * * *", inParis("2026-03-28 09:00"), inParis("2026-03-29 08:00")},
	} {
		c, err := ParseCron(tt.spec)
		if err != nil {
			t.Fatalf("ParseCron(%q): %v", tt.spec, err)
		}
		if got := c.Next(tt.from); !got.Equal(tt.want) {
			t.Errorf("%q after %v = %v, want %v", tt.spec, tt.from, got, tt.want)
		}
	}
}
