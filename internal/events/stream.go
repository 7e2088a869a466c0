package events

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
	"github.com/catalogd/catalogd/internal/store"
	"github.com/catalogd/catalogd/internal/timeline"
)

// Topic is the one topic of the stream, DataHub's platform events.
const Topic = "PlatformEvent_v1"

// partitionKey names the stream's single partition in offset ids, in the
// shape of DataHub's (topic-partition → offset).
const partitionKey = Topic + "-0"

// Limits and defaults of a poll, DataHub's.
const (
	DefaultLimit   = 100
	MaxLimit       = 5000
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 60 * time.Second
)

// Log is the store's event log.
type Log interface {
	EventLogEnd(ctx context.Context) (int64, error)
	ReadEvents(ctx context.Context, from int64, limit int) ([]store.EventRow, error)
	EventOffsetSince(ctx context.Context, ms int64) (int64, error)
	PruneEvents(ctx context.Context, before int64) (int64, error)
}

// Stream serves the event log to consumers. It is safe for concurrent use.
type Stream struct {
	log Log
	// aspects gives the events of process runs the run's parent job or
	// flow, as it is when they are read.
	aspects catalog.Reader
	// Wait is how often a poll that found nothing looks again.
	Wait time.Duration
	now  func() time.Time
}

// NewStream returns a stream over log, which reads other aspects an
// event names from aspects.
func NewStream(log Log, aspects catalog.Reader) *Stream {
	return &Stream{log: log, aspects: aspects, Wait: 50 * time.Millisecond, now: time.Now}
}

// Position is a place in the stream: the offset of a change in the log
// and the index of an event among those the change makes.
type Position struct {
	Change int64
	Event  int
}

// PollQuery asks for events.
type PollQuery struct {
	// From is where to start (as a poll returned it); nil starts at the
	// end of the stream, or LookbackDays back when that is set.
	From         *Position
	LookbackDays int
	Limit        int
	Timeout      time.Duration
}

// Batch is the answer to a poll: the events in order, each DataHub's
// PlatformEvent record as JSON, and the position to poll from next.
type Batch struct {
	Events [][]byte
	Next   Position
}

// Poll returns the events from the query's position on, at most Limit of
// them. When there are none yet it waits for some up to Timeout, and
// answers as soon as any are committed.
func (s *Stream) Poll(ctx context.Context, q PollQuery) (Batch, error) {
	var from Position
	switch {
	case q.From != nil:
		end, err := s.log.EventLogEnd(ctx)
		if err != nil {
			return Batch{}, err
		}
		if f := *q.From; f.Change < 0 || f.Event < 0 || f.Change > end || (f.Change == end && f.Event > 0) {
			return Batch{}, catalog.Errorf(catalog.Invalid, "offsetId names a position (%d, %d) beyond the end of the stream (%d)", f.Change, f.Event, end)
		}
		from = *q.From
	case q.LookbackDays > 0:
		var err error
		if from.Change, err = s.log.EventOffsetSince(ctx, s.now().Add(-time.Duration(q.LookbackDays)*24*time.Hour).UnixMilli()); err != nil {
			return Batch{}, err
		}
	default:
		var err error
		if from.Change, err = s.log.EventLogEnd(ctx); err != nil {
			return Batch{}, err
		}
	}
	deadline := s.now().Add(q.Timeout)
	for {
		b, err := s.read(ctx, from, q.Limit)
		if err != nil || len(b.Events) > 0 || !s.now().Before(deadline) {
			return b, err
		}
		// Changes that make no events still move the position on.
		from = b.Next
		select {
		case <-ctx.Done():
			return b, nil
		case <-time.After(min(s.Wait, deadline.Sub(s.now()))):
		}
	}
}

// rowsPerRead bounds the log rows one read of the store returns.
const rowsPerRead = 32

// read returns up to limit events of committed changes from position from.
func (s *Stream) read(ctx context.Context, from Position, limit int) (Batch, error) {
	b := Batch{Next: from}
	for len(b.Events) < limit {
		rows, err := s.log.ReadEvents(ctx, b.Next.Change, rowsPerRead)
		if err != nil {
			return Batch{}, err
		}
		if len(rows) == 0 {
			return b, nil
		}
		for _, r := range rows {
			off := r.End - int64(r.Count)
			for line := range bytes.SplitSeq(r.Payload, []byte{'\n'}) {
				if len(line) == 0 {
					continue
				}
				if off < b.Next.Change {
					off++
					continue
				}
				if off > b.Next.Change {
					// Rows before it were pruned.
					b.Next = Position{Change: off}
				}
				c, err := decodeChange(line)
				if err != nil {
					return Batch{}, &catalog.Error{Kind: catalog.Internal, Op: fmt.Sprintf("read change %d of the event log", off), Err: err}
				}
				evs, err := s.events(ctx, c)
				if err != nil {
					return Batch{}, err
				}
				for k := b.Next.Event; k < len(evs); k++ {
					if len(b.Events) == limit {
						b.Next.Event = k
						return b, nil
					}
					b.Events = append(b.Events, platformEvent(appendEvent(nil, &evs[k], c.stamp), c.stamp.Time))
				}
				off++
				b.Next = Position{Change: off}
			}
			if b.Next.Change < r.End {
				b.Next = Position{Change: r.End}
			}
		}
	}
	return b, nil
}

// events computes the events of a recorded change.
func (s *Stream) events(ctx context.Context, c change) ([]timeline.ChangeEvent, error) {
	evs := timeline.Changes(c.urn, c.aspect, c.from, c.to)
	for i := range evs {
		if evs[i].Category != timeline.Run {
			continue
		}
		latest, err := s.aspects.LatestAspects(ctx, []string{c.urn}, []string{"dataProcessInstanceRelationships"})
		if err != nil {
			return nil, err
		}
		for _, a := range latest[c.urn] {
			if v, ok := fastjson.Decode(a.Value); ok {
				timeline.RunParams(&evs[i], v)
			}
		}
	}
	return evs, nil
}

// platformEvent wraps an EntityChangeEvent record in DataHub's
// PlatformEvent record.
func platformEvent(ece []byte, ms int64) []byte {
	b := make([]byte, 0, len(ece)+len(ece)/8+128)
	b = append(b, `{"header":{"timestampMillis":`...)
	b = strconv.AppendInt(b, ms, 10)
	b = append(b, `},"name":"entityChangeEvent","payload":{"value":`...)
	b = fastjson.AppendString(b, string(ece))
	return append(b, `,"contentType":"application/json"}}`...)
}

// offsetID is an offset id as JSON: DataHub's shape (topic-partition →
// offset), with the events of the change at that offset to skip.
type offsetID struct {
	Change int64 `json:"PlatformEvent_v1-0"`
	Skip   int   `json:"skip,omitempty"`
}

// EncodeOffset returns the offset id of p: base64 of a JSON object, as
// DataHub's are.
func EncodeOffset(p Position) string {
	j, _ := json.Marshal(offsetID{Change: p.Change, Skip: p.Event})
	return base64.StdEncoding.EncodeToString(j)
}

// DecodeOffset reads an offset id.
func DecodeOffset(id string) (Position, error) {
	bad := catalog.Errorf(catalog.Invalid, "malformed offsetId %q: not an offset id this stream returned", id)
	raw, err := base64.StdEncoding.DecodeString(id)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(id); err != nil {
			return Position{}, bad
		}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return Position{}, bad
	}
	if _, ok := members[partitionKey]; !ok {
		return Position{}, bad
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	var o offsetID
	if err := d.Decode(&o); err != nil {
		return Position{}, bad
	}
	return Position{Change: o.Change, Event: o.Skip}, nil
}

// PruneEvery is how often Prune looks for events past their retention.
const PruneEvery = time.Hour

// Prune removes events older than retention every PruneEvery until ctx
// ends. Consumers whose offset was pruned continue from the oldest event
// kept.
func (s *Stream) Prune(ctx context.Context, retention time.Duration) {
	t := time.NewTicker(PruneEvery)
	defer t.Stop()
	for {
		if n, err := s.log.PruneEvents(ctx, s.now().Add(-retention).UnixMilli()); err != nil {
			if ctx.Err() == nil {
				slog.Warn("event log: prune failed", "err", err)
			}
		} else if n > 0 {
			slog.Info("event log: pruned events past retention", "events", n, "retention", retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
