package restli

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Limits of getTimeseriesAspectValues: DataHub's default, and a cap on what
// one response may hold.
const (
	defaultTimeseriesLimit = 10_000
	maxTimeseriesLimit     = 100_000
)

// ServeTimeseries registers POST /aspects?action=getTimeseriesAspectValues.
func (h *Handler) ServeTimeseries() {
	h.HandleAction("aspects", "getTimeseriesAspectValues", h.getTimeseriesAspectValues)
}

// criterion is rest.li's Criterion record (field, value or values, condition).
type criterion struct {
	Field     string   `json:"field"`
	Value     *string  `json:"value"`
	Values    []string `json:"values"`
	Condition string   `json:"condition"`
	Negated   bool     `json:"negated"`
}

// filter is rest.li's Filter: an "or" of "and" groups, or the deprecated
// flat "criteria" list (one "and" group).
type filter struct {
	Or []struct {
		And []criterion `json:"and"`
	} `json:"or"`
	Criteria []criterion `json:"criteria"`
}

type sortCriterion struct {
	Field string `json:"field"`
	Order string `json:"order"`
}

type timeseriesParams struct {
	URN             string         `json:"urn"`
	Entity          string         `json:"entity"`
	Aspect          string         `json:"aspect"`
	StartTimeMillis *int64         `json:"startTimeMillis"`
	EndTimeMillis   *int64         `json:"endTimeMillis"`
	Limit           *int           `json:"limit"`
	LatestValue     bool           `json:"latestValue"`
	Filter          *filter        `json:"filter"`
	Sort            *sortCriterion `json:"sort"`
}

// genericAspect is rest.li's GenericAspect: the value as a JSON string.
type genericAspect struct {
	Value       string `json:"value"`
	ContentType string `json:"contentType"`
}

type timeseriesValue struct {
	Aspect         genericAspect   `json:"aspect"`
	SystemMetadata json.RawMessage `json:"systemMetadata,omitempty"`
}

// timeseriesResult is DataHub's GetTimeseriesAspectValuesResponse.
type timeseriesResult struct {
	EntityName      string            `json:"entityName"`
	AspectName      string            `json:"aspectName"`
	StartTimeMillis *int64            `json:"startTimeMillis,omitempty"`
	EndTimeMillis   *int64            `json:"endTimeMillis,omitempty"`
	Limit           int               `json:"limit"`
	Values          []timeseriesValue `json:"values"`
}

func (h *Handler) getTimeseriesAspectValues(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var p timeseriesParams
	if err := DecodeParams(body, &p); err != nil {
		return nil, err
	}
	q, plan, err := h.timeseriesPlan(&p)
	if err != nil {
		return nil, err
	}
	values, err := h.store.Timeseries(ctx, q)
	if err != nil {
		return nil, catalog.WithOp("read timeseries "+p.Aspect+" of "+p.URN, err)
	}
	values = plan.apply(values)
	res := timeseriesResult{
		EntityName: p.Entity, AspectName: p.Aspect,
		StartTimeMillis: p.StartTimeMillis, EndTimeMillis: p.EndTimeMillis,
		Limit: plan.limit, Values: make([]timeseriesValue, len(values)),
	}
	for i, v := range values {
		res.Values[i] = timeseriesValue{
			Aspect:         genericAspect{Value: string(v.Value), ContentType: "application/json"},
			SystemMetadata: v.SystemMetadata,
		}
	}
	return res, nil
}

// timeseriesPlan is what remains to do in memory after the store query:
// filter criteria the store cannot evaluate, ascending order, the limit.
type timeseriesPlan struct {
	limit     int
	residual  [][]predicate // an "or" of "and" groups; nil when the store did everything
	ascending bool
}

func (pl timeseriesPlan) apply(values []catalog.TimeseriesValue) []catalog.TimeseriesValue {
	if pl.residual != nil {
		values = slices.DeleteFunc(values, func(v catalog.TimeseriesValue) bool {
			return !slices.ContainsFunc(pl.residual, func(and []predicate) bool {
				for _, p := range and {
					if !p(v) {
						return false
					}
				}
				return true
			})
		})
	}
	if pl.ascending {
		// The store answers newest first; the oldest values are at the end.
		slices.Reverse(values)
	}
	if len(values) > pl.limit {
		values = values[:pl.limit]
	}
	return values
}

type predicate func(catalog.TimeseriesValue) bool

// timeseriesPlan checks the parameters and splits the work between the store
// query and the in-memory plan. Criteria of a single "and" group that the
// store understands (a time range, one partition) go to the store so that
// its limit applies; anything else is evaluated in memory over the
// unlimited range read.
func (h *Handler) timeseriesPlan(p *timeseriesParams) (catalog.TimeseriesQuery, timeseriesPlan, error) {
	var q catalog.TimeseriesQuery
	var pl timeseriesPlan
	if p.URN == "" || p.Entity == "" || p.Aspect == "" {
		return q, pl, catalog.Errorf(catalog.Invalid, "parameters urn, entity and aspect are required")
	}
	u, err := catalog.ParseURN(p.URN)
	if err != nil {
		return q, pl, catalog.WithOp("parameter urn", err)
	}
	ent := h.reg.Entity(p.Entity)
	if ent == nil {
		return q, pl, catalog.Errorf(catalog.Invalid, "parameter entity: unknown entity %q", p.Entity)
	}
	if !strings.EqualFold(u.EntityType(), ent.Name) {
		return q, pl, catalog.Errorf(catalog.Invalid, "parameter urn: %s is not a %s URN", p.URN, ent.Name)
	}
	spec := h.reg.Aspect(p.Aspect)
	switch {
	case spec == nil || !h.reg.EntityHasAspect(ent.Name, p.Aspect):
		return q, pl, catalog.Errorf(catalog.Invalid, "parameter aspect: %q is not an aspect of entity %s", p.Aspect, ent.Name)
	case !spec.Timeseries:
		return q, pl, catalog.Errorf(catalog.Invalid, "parameter aspect: %s is not a timeseries aspect", p.Aspect)
	}
	q.URN, q.Aspect = u.String(), p.Aspect

	pl.limit = defaultTimeseriesLimit
	if p.Limit != nil {
		if *p.Limit < 0 {
			return q, pl, catalog.Errorf(catalog.Invalid, "parameter limit: want a non-negative integer, got %d", *p.Limit)
		}
		pl.limit = min(*p.Limit, maxTimeseriesLimit)
	}
	if p.LatestValue {
		pl.limit = 1
	}

	// Bounds are collected first and given to the store last, because the
	// filter may narrow them.
	var lo, hi int64
	var hasLo, hasHi bool
	if p.StartTimeMillis != nil {
		lo, hasLo = *p.StartTimeMillis, true
	}
	if p.EndTimeMillis != nil {
		hi, hasHi = *p.EndTimeMillis, true
	}

	if p.Sort != nil {
		if p.Sort.Field != "timestampMillis" {
			return q, pl, catalog.Errorf(catalog.Invalid, "parameter sort: cannot sort on %q, only on timestampMillis", p.Sort.Field)
		}
		switch strings.ToUpper(p.Sort.Order) {
		case "", "DESCENDING":
		case "ASCENDING":
			pl.ascending = true
		default:
			return q, pl, catalog.Errorf(catalog.Invalid, "parameter sort: unknown order %q, want ASCENDING or DESCENDING", p.Sort.Order)
		}
	}

	groups, err := filterGroups(p.Filter)
	if err != nil {
		return q, pl, err
	}
	if len(groups) == 1 {
		// One "and" group: push what the store can do, keep the rest.
		var rest []predicate
		for _, c := range groups[0] {
			switch {
			case c.field == fieldTimestamp && !c.negated && c.op != opEqual && len(c.ints) == 1:
				switch c.op {
				case opGT:
					lo, hasLo = maxBound(lo, hasLo, c.ints[0]+1), true
				case opGTE:
					lo, hasLo = maxBound(lo, hasLo, c.ints[0]), true
				case opLT:
					hi, hasHi = minBound(hi, hasHi, c.ints[0]-1), true
				case opLTE:
					hi, hasHi = minBound(hi, hasHi, c.ints[0]), true
				}
			case c.field == fieldPartition && !c.negated && c.op == opEqual && len(c.strs) == 1 && q.Partition == "" && c.strs[0] != "":
				q.Partition = c.strs[0]
			default:
				rest = append(rest, c.pred)
			}
		}
		if len(rest) > 0 {
			pl.residual = [][]predicate{rest}
		}
	} else if len(groups) > 1 {
		pl.residual = make([][]predicate, len(groups))
		for i, g := range groups {
			for _, c := range g {
				pl.residual[i] = append(pl.residual[i], c.pred)
			}
		}
	}
	if hasLo && hasHi && lo > hi {
		// An empty range; the store would read 0 bounds as unbounded.
		pl.limit = 0
	}
	// The store reads 0 as "unbounded": an explicit bound of 0 becomes -1,
	// which selects the same stored values (no timestamp precedes the epoch)
	// except, for an end bound, a value stamped exactly 0.
	if hasLo {
		q.Start = lo
		if lo == 0 {
			q.Start = -1
		}
	}
	if hasHi {
		q.End = hi
		if hi == 0 {
			q.End = -1
		}
	}
	if pl.residual == nil && !pl.ascending {
		// The store applies the limit itself; 0 would mean "no limit" to it.
		q.Limit = max(pl.limit, 1)
	}
	return q, pl, nil
}

func maxBound(cur int64, has bool, v int64) int64 {
	if has && cur > v {
		return cur
	}
	return v
}

func minBound(cur int64, has bool, v int64) int64 {
	if has && cur < v {
		return cur
	}
	return v
}

// The filter fields a timeseries read understands.
const (
	fieldTimestamp = "timestampMillis"
	fieldPartition = "partitionSpec.partition"
	fieldMessageID = "messageId"
)

type condOp int

const (
	opEqual condOp = iota
	opGT
	opGTE
	opLT
	opLTE
)

// condition is one checked criterion.
type condition struct {
	field   string
	op      condOp
	negated bool
	strs    []string
	ints    []int64
	pred    predicate
}

// filterGroups turns a rest.li Filter into "and" groups of conditions,
// rejecting fields and conditions a timeseries read cannot evaluate.
func filterGroups(f *filter) ([][]condition, error) {
	if f == nil {
		return nil, nil
	}
	var raw [][]criterion
	for _, g := range f.Or {
		raw = append(raw, g.And)
	}
	if len(f.Criteria) > 0 {
		if len(raw) > 0 {
			return nil, catalog.Errorf(catalog.Invalid, "parameter filter: give either or or criteria, not both")
		}
		raw = append(raw, f.Criteria)
	}
	groups := make([][]condition, 0, len(raw))
	for i, g := range raw {
		conds := make([]condition, 0, len(g))
		for j, c := range g {
			cond, err := parseCriterion(c)
			if err != nil {
				return nil, catalog.WithOp("parameter filter: criterion "+strconv.Itoa(j)+" of group "+strconv.Itoa(i), err)
			}
			conds = append(conds, cond)
		}
		groups = append(groups, conds)
	}
	return groups, nil
}

func parseCriterion(c criterion) (condition, error) {
	cond := condition{negated: c.Negated}
	values := c.Values
	if len(values) == 0 && c.Value != nil {
		values = []string{*c.Value}
	}
	switch strings.TrimSuffix(c.Field, ".keyword") {
	case fieldTimestamp:
		cond.field = fieldTimestamp
	case fieldPartition:
		cond.field = fieldPartition
	case fieldMessageID:
		cond.field = fieldMessageID
	default:
		return cond, catalog.Errorf(catalog.Invalid, "unsupported field %q: a timeseries read filters on %s, %s or %s",
			c.Field, fieldPartition, fieldTimestamp, fieldMessageID)
	}
	switch strings.ToUpper(c.Condition) {
	case "", "EQUAL", "IN":
		cond.op = opEqual
	case "GREATER_THAN":
		cond.op = opGT
	case "GREATER_THAN_OR_EQUAL_TO":
		cond.op = opGTE
	case "LESS_THAN":
		cond.op = opLT
	case "LESS_THAN_OR_EQUAL_TO":
		cond.op = opLTE
	default:
		return cond, catalog.Errorf(catalog.Invalid, "field %s: unsupported condition %q", c.Field, c.Condition)
	}
	if len(values) == 0 {
		return cond, catalog.Errorf(catalog.Invalid, "field %s: no value given", c.Field)
	}
	if cond.op != opEqual && (cond.field != fieldTimestamp || len(values) != 1) {
		return cond, catalog.Errorf(catalog.Invalid, "field %s: condition %s needs a timestampMillis field and one value", c.Field, c.Condition)
	}
	var test predicate
	if cond.field == fieldTimestamp {
		for _, s := range values {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return cond, catalog.Errorf(catalog.Invalid, "field %s: %q is not an epoch-milliseconds integer", c.Field, s)
			}
			cond.ints = append(cond.ints, n)
		}
		ints, op := cond.ints, cond.op
		test = func(v catalog.TimeseriesValue) bool {
			t := v.TimestampMillis
			switch op {
			case opGT:
				return t > ints[0]
			case opGTE:
				return t >= ints[0]
			case opLT:
				return t < ints[0]
			case opLTE:
				return t <= ints[0]
			}
			return slices.Contains(ints, t)
		}
	} else {
		cond.strs = values
		field := cond.field
		test = func(v catalog.TimeseriesValue) bool {
			if field == fieldPartition {
				return slices.Contains(values, v.Partition)
			}
			return slices.Contains(values, v.MessageID)
		}
	}
	if cond.negated {
		cond.pred = func(v catalog.TimeseriesValue) bool { return !test(v) }
	} else {
		cond.pred = test
	}
	return cond, nil
}
