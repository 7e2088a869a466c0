package ingestion

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cron is a parsed five-field cron expression (minute, hour, day of month,
// month, day of week), the form of DataHub's ingestion schedules.
type Cron struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i allowed
	// domAny and dowAny record a "*" day field: as in every cron, when both
	// day fields are restricted a day matching either runs.
	domAny, dowAny bool
}

var cronMacros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

var monthNames = map[string]int{"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
	"JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12}

var dayNames = map[string]int{"SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6}

// ParseCron parses spec: five fields of numbers, names (JAN-DEC, SUN-SAT),
// "*", ranges a-b, lists a,b and steps */n or a-b/n, or one of the macros
// @hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually.
func ParseCron(spec string) (*Cron, error) {
	s := strings.TrimSpace(spec)
	if m, ok := cronMacros[strings.ToLower(s)]; ok {
		s = m
	}
	f := strings.Fields(s)
	if len(f) != 5 {
		return nil, fmt.Errorf("cron expression %q must have 5 fields (minute hour day-of-month month day-of-week), has %d", spec, len(f))
	}
	c := &Cron{}
	var err error
	if c.minute, _, err = cronField(f[0], 0, 59, nil); err != nil {
		return nil, fmt.Errorf("cron expression %q: minute: %w", spec, err)
	}
	if c.hour, _, err = cronField(f[1], 0, 23, nil); err != nil {
		return nil, fmt.Errorf("cron expression %q: hour: %w", spec, err)
	}
	if c.dom, c.domAny, err = cronField(f[2], 1, 31, nil); err != nil {
		return nil, fmt.Errorf("cron expression %q: day of month: %w", spec, err)
	}
	if c.month, _, err = cronField(f[3], 1, 12, monthNames); err != nil {
		return nil, fmt.Errorf("cron expression %q: month: %w", spec, err)
	}
	if c.dow, c.dowAny, err = cronField(f[4], 0, 7, dayNames); err != nil {
		return nil, fmt.Errorf("cron expression %q: day of week: %w", spec, err)
	}
	if c.dow&(1<<7) != 0 { // 7 is Sunday too
		c.dow |= 1
	}
	return c, nil
}

// cronField parses one field into a bit set of the values in [lo, hi], and
// reports whether it was "*" (or "?", which Quartz-style specs use).
func cronField(s string, lo, hi int, names map[string]int) (uint64, bool, error) {
	if s == "*" || s == "?" {
		return span(lo, hi, 1), true, nil
	}
	var bits uint64
	for _, part := range strings.Split(s, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n <= 0 {
				return 0, false, fmt.Errorf("bad step %q", stepText)
			}
			step = n
		}
		var a, b int
		switch {
		case rng == "*":
			a, b = lo, hi
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var err error
			if a, err = cronValue(x, lo, hi, names); err != nil {
				return 0, false, err
			}
			if b, err = cronValue(y, lo, hi, names); err != nil {
				return 0, false, err
			}
			if b < a {
				return 0, false, fmt.Errorf("range %q ends before it starts", rng)
			}
		default:
			v, err := cronValue(rng, lo, hi, names)
			if err != nil {
				return 0, false, err
			}
			a, b = v, v
			if hasStep {
				b = hi
			}
		}
		bits |= span(a, b, step)
	}
	return bits, false, nil
}

func cronValue(s string, lo, hi int, names map[string]int) (int, error) {
	if v, ok := names[strings.ToUpper(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("bad value %q", s)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("value %d out of range %d-%d", v, lo, hi)
	}
	return v, nil
}

func span(a, b, step int) uint64 {
	var bits uint64
	for i := a; i <= b; i += step {
		bits |= 1 << uint(i)
	}
	return bits
}

func (c *Cron) dayMatches(t time.Time) bool {
	if c.month&(1<<uint(t.Month())) == 0 {
		return false
	}
	dom := c.dom&(1<<uint(t.Day())) != 0
	dow := c.dow&(1<<uint(t.Weekday())) != 0
	switch {
	case c.domAny && c.dowAny:
		return true
	case c.domAny:
		return dow
	case c.dowAny:
		return dom
	}
	return dom || dow
}

// Next returns the first time after t (to the minute, in t's location) the
// expression matches, the zero time when none comes within five years. A
// wall-clock time a daylight-saving change skips does not run.
func (c *Cron) Next(t time.Time) time.Time {
	loc := t.Location()
	t = t.Truncate(time.Minute).Add(time.Minute)
	y, m, d := t.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, loc)
	for i := 0; i < 5*366; i++ {
		dy, dm, dd := day.Date()
		if c.dayMatches(day) {
			for h := 0; h < 24; h++ {
				if c.hour&(1<<uint(h)) == 0 {
					continue
				}
				for mi := 0; mi < 60; mi++ {
					if c.minute&(1<<uint(mi)) == 0 {
						continue
					}
					at := time.Date(dy, dm, dd, h, mi, 0, 0, loc)
					if at.Hour() != h || at.Minute() != mi || at.Day() != dd {
						continue // skipped by a daylight-saving change
					}
					if !at.Before(t) {
						return at
					}
				}
			}
		}
		day = time.Date(dy, dm, dd+1, 0, 0, 0, 0, loc)
	}
	return time.Time{}
}
