// Package events keeps DataHub's platform event stream (topic
// PlatformEvent_v1): the entity change events of every committed write —
// a tag added, an owner removed, a schema field changed, an entity
// created — in commit order, served by offset at GET /openapi/v1/events/poll.
//
// The ingest pipeline hands every write's aspect changes to the Recorder
// inside the write transaction, and the Recorder appends them, with their
// values before and after, to the store's event log as one row, whose
// offsets follow commit order (see store.AppendEvents). So a change is in
// the log exactly when it committed, a consumer that polls with the offset
// it last received gets every later event once and in order, across
// restarts and crashes, and a rolled-back write leaves no trace.
//
// The events are computed from the recorded values when they are read,
// with the timeline package's generators (the computation entity
// timelines use): the write path only copies values it already holds.
package events

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/ingest"
	"github.com/catalogd/catalogd/internal/timeline"
)

// LogTx is a write transaction that can append to the event log.
type LogTx interface {
	// AppendEvents appends count changes (payload, one a line) and
	// returns the offset past them.
	AppendEvents(ctx context.Context, count int, createdMS int64, payload []byte) (int64, error)
}

// Recorder appends the changes of writes to the event log, in the write
// transaction. It implements ingest.ChangeRecorder and is safe for
// concurrent use.
type Recorder struct{}

var _ ingest.ChangeRecorder = Recorder{}

// RecordsAspect implements ingest.ChangeRecorder: the aspects DataHub
// publishes change events for.
func (Recorder) RecordsAspect(aspect string) bool { return timeline.Streamed(aspect) }

// encoded is the record of some changes: count of them, one a line, the
// last made at time at.
type encoded struct {
	payload []byte
	count   int
	at      int64
}

// EncodeChanges implements ingest.ChangeRecorder. Each change is a line
// [urn, aspect, actor, time, previous value, value], values as the JSON
// the writer holds (null when absent). An entity's creation comes before
// the entity's other changes of the same write, as DataHub reports it.
func (Recorder) EncodeChanges(changes []ingest.AspectChange) (ingest.EncodedChanges, error) {
	var e encoded
	size := 0
	for i := range changes {
		size += len(changes[i].URN) + len(changes[i].Previous) + len(changes[i].Value) + 96
	}
	e.payload = make([]byte, 0, size)
	for _, i := range creationsFirst(changes) {
		c := &changes[i]
		e.payload = appendChange(e.payload, c)
		e.count++
		e.at = max(e.at, c.Created.Time)
	}
	return e, nil
}

// creationsFirst returns the indexes of changes in order, but for each
// entity created by them, the creation (the writer adds the key aspect
// after the proposals' aspects) before the entity's first change.
func creationsFirst(changes []ingest.AspectChange) []int {
	created := map[string]int{}
	first := map[string]int{}
	for i := range changes {
		c := &changes[i]
		if _, ok := first[c.URN]; !ok {
			first[c.URN] = i
		}
		if _, ok := created[c.URN]; !ok && c.Previous == nil && c.Value != nil && timeline.IsKeyAspect(c.Aspect) {
			created[c.URN] = i
		}
	}
	order := make([]int, 0, len(changes))
	for i := range changes {
		u := changes[i].URN
		k, creates := created[u]
		switch {
		case creates && k == i && first[u] != i:
			continue // moved in front of the entity's first change
		case creates && k != i && first[u] == i:
			order = append(order, k)
		}
		order = append(order, i)
	}
	return order
}

func appendChange(b []byte, c *ingest.AspectChange) []byte {
	b = append(b, '[')
	b = fastjson.AppendString(b, c.URN)
	b = append(b, ',')
	b = fastjson.AppendString(b, c.Aspect)
	b = append(b, ',')
	b = fastjson.AppendString(b, c.Created.Actor)
	b = append(b, ',')
	b = strconv.AppendInt(b, c.Created.Time, 10)
	for _, v := range [][]byte{c.Previous, c.Value} {
		b = append(b, ',')
		switch {
		case v == nil:
			b = append(b, "null"...)
		case bytes.IndexByte(v, '\n') >= 0:
			// Lines separate changes: stored values are compact, but
			// one that is not is made so.
			if out, ok := fastjson.AppendCompact(b, v); ok {
				b = out
			} else {
				b = append(b, "null"...)
			}
		default:
			b = append(b, v...)
		}
	}
	return append(b, "]\n"...)
}

// RecordChanges implements ingest.ChangeRecorder: the changes of a write
// are one row of the event log.
func (Recorder) RecordChanges(ctx context.Context, tx catalog.Tx, records []ingest.EncodedChanges) error {
	var all encoded
	for _, r := range records {
		e, ok := r.(encoded)
		if !ok {
			return &catalog.Error{Kind: catalog.Internal, Op: "record changes", Err: fmt.Errorf("record of type %T", r)}
		}
		if len(records) == 1 {
			all = e
			break
		}
		// A new buffer: the records may be used again if the write is.
		all.payload = append(all.payload, e.payload...)
		all.count += e.count
		all.at = max(all.at, e.at)
	}
	if all.count == 0 {
		return nil
	}
	lt, ok := tx.(LogTx)
	if !ok {
		return &catalog.Error{Kind: catalog.Internal, Op: "record changes", Err: fmt.Errorf("transaction %T has no event log", tx)}
	}
	_, err := lt.AppendEvents(ctx, all.count, all.at, all.payload)
	return err
}

// change is one recorded change, decoded.
type change struct {
	urn, aspect string
	stamp       catalog.AuditStamp
	from, to    any
}

// decodeChange decodes one line of a row.
func decodeChange(line []byte) (change, error) {
	var c change
	v, ok := fastjson.Decode(line)
	parts, _ := v.([]any)
	if !ok || len(parts) != 6 {
		return c, fmt.Errorf("malformed change record")
	}
	c.urn, _ = parts[0].(string)
	c.aspect, _ = parts[1].(string)
	c.stamp.Actor, _ = parts[2].(string)
	if n, ok := parts[3].(interface{ Int64() (int64, error) }); ok {
		c.stamp.Time, _ = n.Int64()
	}
	c.from, c.to = parts[4], parts[5]
	return c, nil
}

// appendEvent appends the EntityChangeEvent record of e (version 0).
func appendEvent(b []byte, e *timeline.ChangeEvent, stamp catalog.AuditStamp) []byte {
	b = append(b, `{"entityType":`...)
	b = fastjson.AppendString(b, e.EntityType())
	b = append(b, `,"entityUrn":`...)
	b = fastjson.AppendString(b, e.EntityURN)
	b = append(b, `,"category":`...)
	b = fastjson.AppendString(b, string(e.Category))
	b = append(b, `,"operation":`...)
	b = fastjson.AppendString(b, string(e.Operation))
	if e.Modifier != "" {
		b = append(b, `,"modifier":`...)
		b = fastjson.AppendString(b, e.Modifier)
	}
	if len(e.Params) > 0 {
		b = timeline.AppendParams(append(b, `,"parameters":`...), e.Params)
	}
	b = append(b, `,"auditStamp":{"actor":`...)
	b = fastjson.AppendString(b, stamp.Actor)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, stamp.Time, 10)
	return append(b, `},"version":0}`...)
}
