package audit

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Limits of a search.
const (
	// DefaultSize is the page size when the request names none.
	DefaultSize = 10
	// MaxSize bounds one page.
	MaxSize = 10000
	// TotalLimit is where counting matches stops, as in DataHub.
	TotalLimit = 10000
	// scrollLifetime is how long a scroll id stays valid.
	scrollLifetime = 24 * time.Hour
)

// Query is one audit search. Start and End bound the timestamps to
// [Start, End); the lists filter with OR inside one list and AND across them.
type Query struct {
	Start, End  int64
	Size        int
	ScrollID    string
	EventTypes  []string
	EntityTypes []string
	AspectTypes []string
	ActorURNs   []string
}

// Page is one page of results, newest first. Next is set only when more
// results follow; Total counts all matches up to TotalLimit.
type Page struct {
	Events []Event
	Total  int
	Next   string
}

// sortKey is the position of an event in the search order.
type sortKey struct {
	Timestamp int64
	Type      string
	Actor     string
	ID        string
}

// scroll is the JSON inside a scroll id: DataHub's {sort, pitId,
// expirationTime} plus a MAC binding the sort values and filters.
type scroll struct {
	Sort           []any   `json:"sort"`
	PitID          *string `json:"pitId"`
	ExpirationTime int64   `json:"expirationTime"`
	Sig            string  `json:"sig"`
}

// Search answers q from the audit log.
func (r *Recorder) Search(ctx context.Context, q Query) (Page, error) {
	if q.Size < 0 || q.Size > MaxSize {
		return Page{}, catalog.Errorf(catalog.Invalid, "size must be between 0 and %d", MaxSize)
	}
	if q.End <= q.Start {
		return Page{}, catalog.Errorf(catalog.Invalid, "endTime must be after startTime")
	}
	var after *sortKey
	if q.ScrollID != "" {
		k, err := r.decodeScroll(q)
		if err != nil {
			return Page{}, err
		}
		after = &k
	}
	var where strings.Builder
	var args []any
	where.WriteString("timestamp_ms >= ? AND timestamp_ms < ?")
	args = append(args, q.Start, q.End)
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where.WriteString(" AND " + col + " IN (?" + strings.Repeat(",?", len(vals)-1) + ")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("event_type", q.EventTypes)
	in("entity_type", q.EntityTypes)
	in("aspect_name", q.AspectTypes)
	in("actor_urn", q.ActorURNs)
	filter, filterArgs := where.String(), slices.Clone(args)

	if after != nil {
		where.WriteString(` AND (timestamp_ms < ? OR (timestamp_ms = ? AND (event_type > ? OR (event_type = ? AND
	(actor_urn > ? OR (actor_urn = ? AND id > ?))))))`)
		args = append(args, after.Timestamp, after.Timestamp, after.Type, after.Type, after.Actor, after.Actor, after.ID)
	}
	page := Page{}
	if q.Size > 0 {
		// One row more than asked tells whether another page follows.
		query := `SELECT id, timestamp_ms, event_type, actor_urn, entity_urn, entity_type, aspect_name, login_source,
	source_ip, event_source, user_agent, trace_id, search_query FROM audit_event WHERE ` + where.String() +
			` ORDER BY timestamp_ms DESC, event_type, actor_urn, id LIMIT ` + fmt.Sprint(q.Size+1)
		rows, err := r.db.DB.QueryContext(ctx, r.rebind(query), args...)
		if err != nil {
			return Page{}, &catalog.Error{Kind: catalog.Internal, Op: "search audit events", Err: err}
		}
		evs, err := scanEvents(rows)
		rows.Close()
		if err != nil {
			return Page{}, &catalog.Error{Kind: catalog.Internal, Op: "read audit events", Err: err}
		}
		if len(evs) > q.Size {
			evs = evs[:q.Size]
			last := evs[len(evs)-1]
			page.Next = r.encodeScroll(q, sortKey{last.Timestamp, last.Type, last.Actor, last.ID})
		}
		page.Events = evs
	}
	countQuery := fmt.Sprintf("SELECT COUNT(*) FROM (SELECT 1 FROM audit_event WHERE %s LIMIT %d) capped", filter, TotalLimit)
	if err := r.db.DB.QueryRowContext(ctx, r.rebind(countQuery), filterArgs...).Scan(&page.Total); err != nil {
		return Page{}, &catalog.Error{Kind: catalog.Internal, Op: "count audit events", Err: err}
	}
	return page, nil
}

// rebind turns ? placeholders into PostgreSQL's $n. The queries here hold no
// literal question marks.
func (r *Recorder) rebind(q string) string {
	if !r.postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// mac signs a sort key, its expiry and the filters of the query it came from.
func (r *Recorder) mac(q Query, k sortKey, exp int64) string {
	h := hmac.New(sha256.New, r.key)
	// Lengths are written before each value so that no two inputs encode alike.
	write := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	fmt.Fprintf(h, "%d;%d;", k.Timestamp, exp)
	write(k.Type)
	write(k.Actor)
	write(k.ID)
	for _, list := range [][]string{q.EventTypes, q.EntityTypes, q.AspectTypes, q.ActorURNs} {
		s := slices.Clone(list)
		slices.Sort(s)
		fmt.Fprintf(h, "[%d]", len(s))
		for _, v := range s {
			write(v)
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

func (r *Recorder) encodeScroll(q Query, k sortKey) string {
	exp := r.now().Add(scrollLifetime).UnixMilli()
	b, _ := json.Marshal(scroll{Sort: []any{k.Timestamp, k.Type, k.Actor, k.ID}, ExpirationTime: exp, Sig: r.mac(q, k, exp)})
	return base64.StdEncoding.EncodeToString(b)
}

// decodeScroll validates a scroll id strictly: well-formed, signed by this
// service for the same filters, and not expired.
func (r *Recorder) decodeScroll(q Query) (sortKey, error) {
	bad := func(why string) error { return catalog.Errorf(catalog.Invalid, "invalid scrollId: %s", why) }
	raw, err := base64.StdEncoding.DecodeString(q.ScrollID)
	if err != nil {
		return sortKey{}, bad("not base64")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	d.UseNumber()
	var s scroll
	if err := d.Decode(&s); err != nil || d.More() {
		return sortKey{}, bad("malformed")
	}
	if len(s.Sort) != 4 {
		return sortKey{}, bad("malformed sort values")
	}
	var k sortKey
	n, ok := s.Sort[0].(json.Number)
	if !ok {
		return sortKey{}, bad("malformed sort values")
	}
	if k.Timestamp, err = n.Int64(); err != nil {
		return sortKey{}, bad("malformed sort values")
	}
	strs := []*string{&k.Type, &k.Actor, &k.ID}
	for i, p := range strs {
		v, ok := s.Sort[i+1].(string)
		if !ok {
			return sortKey{}, bad("malformed sort values")
		}
		*p = v
	}
	if !hmac.Equal([]byte(s.Sig), []byte(r.mac(q, k, s.ExpirationTime))) {
		return sortKey{}, bad("not issued for this query")
	}
	if s.ExpirationTime < r.now().UnixMilli() {
		return sortKey{}, bad("expired")
	}
	return k, nil
}
