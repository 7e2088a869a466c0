// Package usage serves DataHub's usage statistics resource (/usageStats):
// the usage aggregations that connectors report are kept as
// datasetUsageStatistics timeseries values, and queries aggregate those
// values into time buckets and totals per user and per field, as DataHub's
// usage service does over its timeseries index.
package usage

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
)

// Aspect is the timeseries aspect usage statistics are kept in.
const Aspect = "datasetUsageStatistics"

// Durations are the bucket sizes of a query (DataHub's WindowDuration).
var Durations = []string{"YEAR", "MONTH", "WEEK", "DAY", "HOUR"}

// Ranges are how far back a range query reaches (DataHub's
// UsageTimeRange), and the span each stands for: a bucket more than the
// range, so that the bucket the range begins in is whole.
var Ranges = map[string]time.Duration{
	"HOUR":    2 * time.Hour,
	"DAY":     2 * 24 * time.Hour,
	"WEEK":    8 * 24 * time.Hour,
	"MONTH":   31 * 24 * time.Hour,
	"QUARTER": 92 * 24 * time.Hour,
	"YEAR":    366 * 24 * time.Hour,
	"ALL":     0,
}

// UserCount is the usage of one user (DataHub's UserUsageCounts).
type UserCount struct {
	User      string `json:"user,omitempty"`
	Count     int64  `json:"count"`
	UserEmail string `json:"userEmail,omitempty"`
}

// FieldCount is the usage of one field (DataHub's FieldUsageCounts).
type FieldCount struct {
	FieldName string `json:"fieldName"`
	Count     int64  `json:"count"`
}

// Metrics are the usage of one bucket (DataHub's UsageAggregationMetrics).
type Metrics struct {
	UniqueUserCount *int64       `json:"uniqueUserCount,omitempty"`
	Users           []UserCount  `json:"users,omitempty"`
	TotalSQLQueries *int64       `json:"totalSqlQueries,omitempty"`
	TopSQLQueries   []string     `json:"topSqlQueries,omitempty"`
	Fields          []FieldCount `json:"fields,omitempty"`
}

// Aggregation is the usage of one resource in one time bucket (DataHub's
// UsageAggregation).
type Aggregation struct {
	Bucket   int64   `json:"bucket"`
	Duration string  `json:"duration"`
	Resource string  `json:"resource"`
	Metrics  Metrics `json:"metrics"`
}

// Aggregations are the totals of a query.
type Aggregations struct {
	UniqueUserCount *int64       `json:"uniqueUserCount,omitempty"`
	TotalSQLQueries *int64       `json:"totalSqlQueries,omitempty"`
	Users           []UserCount  `json:"users"`
	Fields          []FieldCount `json:"fields"`
}

// Result answers a query (DataHub's UsageQueryResult).
type Result struct {
	Buckets      []Aggregation `json:"buckets"`
	Aggregations Aggregations  `json:"aggregations"`
}

// CheckDuration reports whether d is a bucket size.
func CheckDuration(d string) error {
	if !slices.Contains(Durations, d) {
		return catalog.Errorf(catalog.Invalid, "duration %q is not one of %s", d, strings.Join(Durations, ", "))
	}
	return nil
}

// Proposals turns usage aggregations into the datasetUsageStatistics
// values DataHub stores for them: the bucket start as the timestamp, the
// duration as the granularity, users and fields with their counts.
func Proposals(aggs []Aggregation) ([]catalog.Proposal, error) {
	props := make([]catalog.Proposal, 0, len(aggs))
	for i, a := range aggs {
		if err := CheckDuration(a.Duration); err != nil {
			return nil, catalog.WithOp("bucket "+strconv.Itoa(i), err)
		}
		u, err := catalog.ParseURN(a.Resource)
		if err != nil {
			return nil, catalog.WithOp("bucket "+strconv.Itoa(i), err)
		}
		v := map[string]any{
			"timestampMillis":  a.Bucket,
			"eventGranularity": map[string]any{"unit": a.Duration, "multiple": 1},
		}
		m := a.Metrics
		if m.UniqueUserCount != nil {
			v["uniqueUserCount"] = *m.UniqueUserCount
		}
		if m.TotalSQLQueries != nil {
			v["totalSqlQueries"] = *m.TotalSQLQueries
		}
		if m.TopSQLQueries != nil {
			v["topSqlQueries"] = m.TopSQLQueries
		}
		if m.Users != nil {
			users := make([]any, 0, len(m.Users))
			for _, uc := range m.Users {
				e := map[string]any{"count": uc.Count}
				if uc.User != "" {
					e["user"] = uc.User
				}
				users = append(users, e)
			}
			v["userCounts"] = users
		}
		if m.Fields != nil {
			fields := make([]any, 0, len(m.Fields))
			for _, fc := range m.Fields {
				fields = append(fields, map[string]any{"fieldPath": fc.FieldName, "count": fc.Count})
			}
			v["fieldCounts"] = fields
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		props = append(props, catalog.Proposal{
			EntityType: u.EntityType(), EntityURN: u.String(), ChangeType: catalog.Upsert,
			AspectName: Aspect, Value: raw, ContentType: "application/json",
		})
	}
	return props, nil
}

// Query asks for the usage of one resource.
type Query struct {
	Resource catalog.URN
	Duration string
	// Start and End bound the values' timestamps, epoch ms, inclusive;
	// 0 is unbounded.
	Start, End int64
}

// RangeQuery asks for the usage of resource in buckets of duration over
// the range rangeFromEnd (a key of Ranges) back from now: DataHub's
// queryRange, which its GraphQL usage fields also run.
func RangeQuery(resource catalog.URN, duration, rangeFromEnd string, now time.Time) (Query, error) {
	span, ok := Ranges[rangeFromEnd]
	if !ok {
		return Query{}, catalog.Errorf(catalog.Invalid, "rangeFromEnd %q is not one of HOUR, DAY, WEEK, MONTH, QUARTER, YEAR, ALL", rangeFromEnd)
	}
	q := Query{Resource: resource, Duration: duration, End: now.UnixMilli()}
	if span > 0 {
		// Both ends are inclusive: a millisecond more reaches the start
		// of the first whole bucket.
		q.Start = now.Add(-span).UnixMilli() - 1
	}
	return q, nil
}

// stored is the part of a datasetUsageStatistics value a query reads.
type stored struct {
	TimestampMillis int64    `json:"timestampMillis"`
	UniqueUserCount *int64   `json:"uniqueUserCount"`
	TotalSQLQueries *int64   `json:"totalSqlQueries"`
	TopSQLQueries   []string `json:"topSqlQueries"`
	UserCounts      []struct {
		User      string `json:"user"`
		Count     int64  `json:"count"`
		UserEmail string `json:"userEmail"`
	} `json:"userCounts"`
	FieldCounts []struct {
		FieldPath string `json:"fieldPath"`
		Count     int64  `json:"count"`
	} `json:"fieldCounts"`
}

// Run aggregates the resource's usage values within the window: per
// bucket of the duration (calendar-aligned, UTC) the latest value's
// user count, query count and top queries; over the window the sum of
// each user's and each field's counts, and the sum of the buckets' query
// counts.
func Run(ctx context.Context, r catalog.Reader, q Query) (Result, error) {
	if err := CheckDuration(q.Duration); err != nil {
		return Result{}, err
	}
	values, err := r.Timeseries(ctx, catalog.TimeseriesQuery{URN: q.Resource.String(), Aspect: Aspect, Start: q.Start, End: q.End})
	if err != nil {
		return Result{}, catalog.WithOp("read usage of "+q.Resource.String(), err)
	}
	res := Result{Buckets: []Aggregation{}, Aggregations: Aggregations{Users: []UserCount{}, Fields: []FieldCount{}}}
	latest := map[int64]*stored{} // bucket → its latest value
	users := map[string]*UserCount{}
	fields := map[string]*FieldCount{}
	// Values come newest first.
	for _, v := range values {
		var s stored
		if err := json.Unmarshal(v.Value, &s); err != nil {
			return Result{}, &catalog.Error{Kind: catalog.Internal, Op: "decode usage of " + q.Resource.String(), Err: err}
		}
		b := bucketStart(s.TimestampMillis, q.Duration)
		if latest[b] == nil {
			latest[b] = &s
		}
		for _, uc := range s.UserCounts {
			if uc.User == "" {
				continue
			}
			u := users[uc.User]
			if u == nil {
				u = &UserCount{User: uc.User, UserEmail: uc.UserEmail}
				users[uc.User] = u
			}
			u.Count += uc.Count
		}
		for _, fc := range s.FieldCounts {
			f := fields[fc.FieldPath]
			if f == nil {
				f = &FieldCount{FieldName: fc.FieldPath}
				fields[fc.FieldPath] = f
			}
			f.Count += fc.Count
		}
	}
	starts := make([]int64, 0, len(latest))
	for b := range latest {
		starts = append(starts, b)
	}
	slices.Sort(starts)
	for _, b := range starts {
		s := latest[b]
		res.Buckets = append(res.Buckets, Aggregation{
			Bucket: b, Duration: q.Duration, Resource: q.Resource.String(),
			Metrics: Metrics{UniqueUserCount: s.UniqueUserCount, TotalSQLQueries: s.TotalSQLQueries, TopSQLQueries: s.TopSQLQueries},
		})
		if s.TotalSQLQueries != nil {
			if res.Aggregations.TotalSQLQueries == nil {
				res.Aggregations.TotalSQLQueries = new(int64)
			}
			*res.Aggregations.TotalSQLQueries += *s.TotalSQLQueries
		}
	}
	for _, u := range users {
		res.Aggregations.Users = append(res.Aggregations.Users, *u)
	}
	sort.Slice(res.Aggregations.Users, func(i, j int) bool {
		a, b := res.Aggregations.Users[i], res.Aggregations.Users[j]
		return a.Count > b.Count || (a.Count == b.Count && a.User < b.User)
	})
	n := int64(len(users))
	res.Aggregations.UniqueUserCount = &n
	for _, f := range fields {
		res.Aggregations.Fields = append(res.Aggregations.Fields, *f)
	}
	sort.Slice(res.Aggregations.Fields, func(i, j int) bool {
		a, b := res.Aggregations.Fields[i], res.Aggregations.Fields[j]
		return a.Count > b.Count || (a.Count == b.Count && a.FieldName < b.FieldName)
	})
	return res, nil
}

// bucketStart is the start of the calendar bucket of the duration that
// holds ms, in UTC; weeks start on Monday.
func bucketStart(ms int64, duration string) int64 {
	t := time.UnixMilli(ms).UTC()
	var s time.Time
	switch duration {
	case "HOUR":
		s = t.Truncate(time.Hour)
	case "DAY":
		s = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case "WEEK":
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		s = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "MONTH":
		s = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	default: // YEAR
		s = time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return s.UnixMilli()
}
