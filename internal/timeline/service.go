package timeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// History reads the stored versions of an entity's aspects.
type History interface {
	// AspectVersions returns every stored version (0, the latest, and the
	// history 1..N) of every versioned aspect of urn.
	AspectVersions(ctx context.Context, urn string) ([]catalog.Aspect, error)
}

// categoryAspects are, for the entity types that have a timeline, the
// aspects whose versions each category is computed from (DataHub's
// timeline registry).
var categoryAspects = map[string]map[Category][]string{
	"dataset": {
		Tag:             {"schemaMetadata", "editableSchemaMetadata", "globalTags"},
		Owner:           {"ownership"},
		Documentation:   {"institutionalMemory", "editableDatasetProperties", "datasetProperties", "editableSchemaMetadata", "schemaMetadata"},
		GlossaryTerm:    {"glossaryTerms", "editableSchemaMetadata"},
		TechnicalSchema: {"schemaMetadata"},
	},
	"glossaryTerm": {
		Owner:         {"ownership"},
		Documentation: {"glossaryTermInfo"},
	},
}

// DefaultLookback is the window of a timeline that gives no start.
const DefaultLookback = 7 * 24 * time.Hour

// Query asks for the timeline of one entity.
type Query struct {
	URN        catalog.URN
	Categories []Category
	// Start and End bound the versions looked at, in epoch ms, inclusive:
	// End 0 means now, Start -1 means DefaultLookback before End.
	Start, End int64
	// Raw adds each transaction's JSON Patch from the previous version.
	Raw bool
}

// Transaction is the set of changes one write made to an entity, as the
// timeline reports it: DataHub's ChangeTransaction.
type Transaction struct {
	Timestamp    int64
	Actor        string
	SemVer       string // computed semantic version, e.g. "1.2.0-computed"
	SemVerChange SemVerChange
	Events       []ChangeEvent
	RawDiff      []PatchOp // with Query.Raw
	// VersionStamp names the version of every aspect the entity had then:
	// "aspect:version;..." in aspect order.
	VersionStamp string
}

// PatchOp is one JSON Patch operation of a raw diff.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Service computes timelines from stored aspect versions.
type Service struct {
	history History
	now     func() time.Time
}

// NewService returns a timeline service reading versions from h.
func NewService(h History) *Service { return &Service{history: h, now: time.Now} }

// ParseCategory returns the category named s (DataHub's names).
func ParseCategory(s string) (Category, error) {
	c := Category(strings.TrimSpace(s))
	if slices.Contains(Categories, c) {
		return c, nil
	}
	names := make([]string, len(Categories))
	for i, c := range Categories {
		names[i] = string(c)
	}
	return "", catalog.Errorf(catalog.Invalid, "unknown change category %q (want one of %s)", s, strings.Join(names, ", "))
}

// group is the changes of one timestamp while a timeline is built.
type group struct {
	tx      Transaction
	hasTx   bool // a transition of the group produced events
	maxSemV SemVerChange
}

// Timeline returns the transactions that changed the entity within the
// query's window in the given categories, oldest first. Each transaction
// diffs one stored version against the one before it (or nothing, for
// the first).
func (s *Service) Timeline(ctx context.Context, q Query) ([]Transaction, error) {
	reg, ok := categoryAspects[q.URN.EntityType()]
	if !ok {
		return nil, catalog.Errorf(catalog.Invalid, "entity type %s has no timeline (supported: dataset, glossaryTerm)", q.URN.EntityType())
	}
	if len(q.Categories) == 0 {
		return nil, catalog.Errorf(catalog.Invalid, "categories is required")
	}
	end := q.End
	if end == 0 {
		end = s.now().UnixMilli()
	}
	start := q.Start
	if start == -1 {
		start = end - DefaultLookback.Milliseconds()
	}
	// The aspects each requested category reads, and for each aspect the
	// categories it is read for.
	wanted := map[string][]Category{}
	for _, c := range Categories {
		if !slices.Contains(q.Categories, c) {
			continue
		}
		for _, a := range reg[c] {
			wanted[a] = append(wanted[a], c)
		}
	}
	rows, err := s.history.AspectVersions(ctx, q.URN.String())
	if err != nil {
		return nil, catalog.WithOp("read versions of "+q.URN.String(), err)
	}
	seqs := sequences(rows)
	groups := map[int64]*group{}
	names := make([]string, 0, len(wanted))
	for a := range wanted {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, aspect := range names {
		seq := seqs[aspect]
		for k, cur := range seq {
			t := cur.Created.Time
			if t < start || t > end {
				continue
			}
			var prev *catalog.Aspect
			if k > 0 {
				prev = &seq[k-1]
			}
			g := groups[t]
			if g == nil {
				g = &group{tx: Transaction{Timestamp: t}}
				groups[t] = g
			}
			var kept []ChangeEvent
			events, err := transition(q.URN.String(), aspect, prev, &cur)
			if err != nil {
				// DataHub reports a change it cannot compute as an
				// exceptional one rather than failing the timeline.
				kept = []ChangeEvent{{SemVer: Exceptional, Description: describe("%s", err.Error())}}
			}
			for _, c := range wanted[aspect] {
				for _, e := range events {
					if e.Category == c {
						kept = append(kept, e)
					}
				}
			}
			if len(kept) == 0 {
				continue
			}
			if !g.hasTx {
				g.hasTx = true
				g.tx.Actor = cur.Created.Actor
				if q.Raw {
					g.tx.RawDiff = rawDiff(prev, &cur)
				}
			}
			g.tx.Events = append(g.tx.Events, kept...)
			for _, e := range kept {
				g.maxSemV = max(g.maxSemV, e.SemVer)
			}
		}
	}
	times := make([]int64, 0, len(groups))
	for t := range groups {
		times = append(times, t)
	}
	slices.Sort(times)
	var out []Transaction
	var major, minor, patch int
	for i, t := range times {
		g := groups[t]
		if i > 0 {
			switch g.maxSemV {
			case Major:
				major, minor, patch = major+1, 0, 0
			case Minor:
				minor, patch = minor+1, 0
			case Patch:
				patch++
			}
		}
		if !g.hasTx {
			continue
		}
		g.tx.SemVer = fmt.Sprintf("%d.%d.%d-computed", major, minor, patch)
		g.tx.SemVerChange = g.maxSemV
		g.tx.VersionStamp = versionStamp(seqs, t)
		out = append(out, g.tx)
	}
	return out, nil
}

// sequences orders the rows of each aspect from the oldest version to the
// latest: history versions 1..N, then version 0.
func sequences(rows []catalog.Aspect) map[string][]catalog.Aspect {
	out := map[string][]catalog.Aspect{}
	for _, r := range rows {
		out[r.Name] = append(out[r.Name], r)
	}
	rank := func(v int64) int64 {
		if v == 0 {
			return 1 << 62
		}
		return v
	}
	for _, seq := range out {
		sort.Slice(seq, func(i, j int) bool { return rank(seq[i].Version) < rank(seq[j].Version) })
	}
	return out
}

// versionStamp names, for every aspect, the version the entity had at t.
func versionStamp(seqs map[string][]catalog.Aspect, t int64) string {
	names := make([]string, 0, len(seqs))
	for n := range seqs {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		var at *catalog.Aspect
		for k := range seqs[n] {
			if seqs[n][k].Created.Time <= t {
				at = &seqs[n][k]
			}
		}
		if at != nil {
			parts = append(parts, fmt.Sprintf("%s:%d", n, at.Version))
		}
	}
	return strings.Join(parts, ";")
}

// transition computes the change events from prev (nil: nothing) to cur.
func transition(urn, aspect string, prev, cur *catalog.Aspect) ([]ChangeEvent, error) {
	var from any
	if prev != nil {
		v, err := decode(prev.Value)
		if err != nil {
			return nil, fmt.Errorf("decode version %d of %s: %w", prev.Version, aspect, err)
		}
		from = v
	}
	to, err := decode(cur.Value)
	if err != nil {
		return nil, fmt.Errorf("decode version %d of %s: %w", cur.Version, aspect, err)
	}
	return Changes(urn, aspect, from, to), nil
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// rawDiff is the JSON Patch from prev (an empty object when nil) to cur.
func rawDiff(prev, cur *catalog.Aspect) []PatchOp {
	var from any = map[string]any{}
	if prev != nil {
		if v, err := decode(prev.Value); err == nil {
			from = v
		}
	}
	to, err := decode(cur.Value)
	if err != nil {
		return nil
	}
	ops := []PatchOp{}
	diffJSON("", from, to, &ops)
	return ops
}

// diffJSON appends the operations that turn a into b at path.
func diffJSON(path string, a, b any, ops *[]PatchOp) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := path + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			av, ina := am[k]
			bv, inb := bm[k]
			switch {
			case !inb:
				*ops = append(*ops, PatchOp{Op: "remove", Path: p})
			case !ina:
				*ops = append(*ops, PatchOp{Op: "add", Path: p, Value: bv})
			default:
				diffJSON(p, av, bv, ops)
			}
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok {
		n := min(len(al), len(bl))
		for i := 0; i < n; i++ {
			diffJSON(fmt.Sprintf("%s/%d", path, i), al[i], bl[i], ops)
		}
		for i := len(al) - 1; i >= n; i-- {
			*ops = append(*ops, PatchOp{Op: "remove", Path: fmt.Sprintf("%s/%d", path, i)})
		}
		for i := n; i < len(bl); i++ {
			*ops = append(*ops, PatchOp{Op: "add", Path: fmt.Sprintf("%s/%d", path, i), Value: bl[i]})
		}
		return
	}
	if !jsonEqual(a, b) {
		*ops = append(*ops, PatchOp{Op: "replace", Path: path, Value: b})
	}
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
