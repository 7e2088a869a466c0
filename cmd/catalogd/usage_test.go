package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type usageResult struct {
	Value struct {
		Buckets []struct {
			Bucket   int64  `json:"bucket"`
			Duration string `json:"duration"`
			Resource string `json:"resource"`
			Metrics  struct {
				UniqueUserCount *int     `json:"uniqueUserCount"`
				TotalSQLQueries *int     `json:"totalSqlQueries"`
				TopSQLQueries   []string `json:"topSqlQueries"`
			} `json:"metrics"`
		} `json:"buckets"`
		Aggregations struct {
			UniqueUserCount *int `json:"uniqueUserCount"`
			TotalSQLQueries *int `json:"totalSqlQueries"`
			Users           []struct {
				User      string `json:"user"`
				Count     int    `json:"count"`
				UserEmail string `json:"userEmail"`
			} `json:"users"`
			Fields []struct {
				FieldName string `json:"fieldName"`
				Count     int    `json:"count"`
			} `json:"fields"`
		} `json:"aggregations"`
	} `json:"value"`
}

func queryUsage(t *testing.T, srv *testServer, action string, params map[string]any) usageResult {
	t.Helper()
	var r usageResult
	if err := json.Unmarshal(srv.mustDo(t, 200, "POST", "/usageStats?action="+action, params), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestUsageSamples loads the usage statistics of DataHub's BigQuery usage
// sample and queries them back by day, week and in total.
func TestUsageSamples(t *testing.T) {
	dir := samplesDir(t)
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			newSampleReplay(srv).postFile(t, filepath.Join(dir, "golden", "bigquery_usages_golden.json"))
			const ds = "urn:li:dataset:(urn:li:dataPlatform:bigquery,harshal-playground-306419.test_schema.excess_deaths_derived,PROD)"
			// The sample has three days of usage of this table: 4, 2 and
			// 1 queries by one user over 12 fields.
			r := queryUsage(t, srv, "queryRange", map[string]any{"resource": ds, "duration": "DAY", "rangeFromEnd": "ALL"})
			var days []int64
			var queries []int
			for _, b := range r.Value.Buckets {
				days = append(days, b.Bucket)
				if b.Metrics.TotalSQLQueries != nil {
					queries = append(queries, *b.Metrics.TotalSQLQueries)
				}
				if b.Duration != "DAY" || b.Resource != ds || b.Metrics.UniqueUserCount == nil || *b.Metrics.UniqueUserCount != 1 || len(b.Metrics.TopSQLQueries) == 0 {
					t.Errorf("bucket %+v", b)
				}
			}
			if jsonString(days) != "[1622073600000,1622160000000,1622505600000]" || jsonString(queries) != "[4,2,1]" {
				t.Errorf("daily buckets %v with queries %v", days, queries)
			}
			agg := r.Value.Aggregations
			if agg.TotalSQLQueries == nil || *agg.TotalSQLQueries != 7 || agg.UniqueUserCount == nil || *agg.UniqueUserCount != 1 ||
				len(agg.Users) != 1 || agg.Users[0].User != "urn:li:corpuser:harshal" || agg.Users[0].Count != 7 || agg.Users[0].UserEmail != "harshal@acryl.io" {
				t.Errorf("aggregations: %s", jsonString(agg))
			}
			if len(agg.Fields) != 12 || agg.Fields[0].Count != 7 || agg.Fields[0].FieldName != "baseline" {
				t.Errorf("fields: %s", jsonString(agg.Fields))
			}
			// By week: 27 and 28 May 2021 fall in the week of Monday 24
			// May, 1 June in that of 31 May.
			r = queryUsage(t, srv, "query", map[string]any{"resource": ds, "duration": "WEEK"})
			days, queries = nil, nil
			for _, b := range r.Value.Buckets {
				days = append(days, b.Bucket)
				queries = append(queries, *b.Metrics.TotalSQLQueries)
			}
			if jsonString(days) != "[1621814400000,1622419200000]" || jsonString(queries) != "[2,1]" || *r.Value.Aggregations.TotalSQLQueries != 3 {
				t.Errorf("weekly buckets %v with the latest day's queries %v, total %d", days, queries, *r.Value.Aggregations.TotalSQLQueries)
			}
			// A window that holds the first day only.
			r = queryUsage(t, srv, "query", map[string]any{"resource": ds, "duration": "DAY", "startTime": 1622073600000, "endTime": 1622073600000})
			if len(r.Value.Buckets) != 1 || r.Value.Aggregations.Users[0].Count != 4 {
				t.Errorf("first day: %s", jsonString(r.Value))
			}
			// The usage of 2021 is older than a month.
			r = queryUsage(t, srv, "queryRange", map[string]any{"resource": ds, "duration": "DAY", "rangeFromEnd": "MONTH"})
			if len(r.Value.Buckets) != 0 || *r.Value.Aggregations.UniqueUserCount != 0 || r.Value.Aggregations.TotalSQLQueries != nil {
				t.Errorf("last month: %s", jsonString(r.Value))
			}
		})
	}
}

// TestUsageBatchIngest reports usage through batchIngest, as DataHub's
// emitters do, and reads it back as datasetUsageStatistics and through
// queries.
func TestUsageBatchIngest(t *testing.T) {
	srv := startServer(t)
	const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)"
	bucket := func(day int64, queries int, users map[string]int) map[string]any {
		var us []any
		for u, n := range users {
			us = append(us, map[string]any{"user": u, "count": n})
		}
		return map[string]any{"bucket": 1700006400000 + day*86400000, "duration": "DAY", "resource": ds, "metrics": map[string]any{
			"uniqueUserCount": len(users), "totalSqlQueries": queries, "topSqlQueries": []any{"select 1"}, "users": us,
			"fields": []any{map[string]any{"fieldName": "id", "count": queries}},
		}}
	}
	srv.mustDo(t, 200, "POST", "/usageStats?action=batchIngest", map[string]any{"buckets": []any{
		bucket(0, 3, map[string]int{"urn:li:corpuser:a": 2, "urn:li:corpuser:b": 1}),
		bucket(1, 5, map[string]int{"urn:li:corpuser:a": 5}),
	}})
	r := queryUsage(t, srv, "queryRange", map[string]any{"resource": ds, "duration": "DAY", "rangeFromEnd": "ALL"})
	agg := r.Value.Aggregations
	if len(r.Value.Buckets) != 2 || *agg.TotalSQLQueries != 8 || *agg.UniqueUserCount != 2 ||
		jsonString(agg.Users) != `[{"user":"urn:li:corpuser:a","count":7,"userEmail":""},{"user":"urn:li:corpuser:b","count":1,"userEmail":""}]` ||
		jsonString(agg.Fields) != `[{"fieldName":"id","count":8}]` {
		t.Errorf("usage after batchIngest: %s", jsonString(r.Value))
	}
	// Stored as DataHub stores it: the bucket's start, its granularity.
	var ts struct {
		Value struct {
			Values []struct {
				Aspect struct {
					Value string `json:"value"`
				} `json:"aspect"`
			} `json:"values"`
		} `json:"value"`
	}
	if err := json.Unmarshal(srv.mustDo(t, 200, "POST", "/aspects?action=getTimeseriesAspectValues",
		map[string]any{"urn": ds, "entity": "dataset", "aspect": "datasetUsageStatistics"}), &ts); err != nil {
		t.Fatal(err)
	}
	if len(ts.Value.Values) != 2 || !strings.Contains(ts.Value.Values[0].Aspect.Value, `"eventGranularity":{"multiple":1,"unit":"DAY"}`) ||
		!strings.Contains(ts.Value.Values[0].Aspect.Value, `"fieldCounts":[{"count":5,"fieldPath":"id"}]`) {
		t.Errorf("stored usage: %s", jsonString(ts.Value.Values))
	}

	bad := []struct {
		action string
		body   map[string]any
		want   string
	}{
		{"queryRange", map[string]any{"resource": ds, "duration": "DAY", "rangeFromEnd": "DECADE"}, "rangeFromEnd"},
		{"queryRange", map[string]any{"resource": ds, "duration": "MINUTE", "rangeFromEnd": "ALL"}, "duration"},
		{"query", map[string]any{"duration": "DAY"}, "resource is required"},
		{"query", map[string]any{"resource": ds, "duration": "DAY", "limit": 3}, "unknown parameter"},
		{"batchIngest", map[string]any{"buckets": []any{bucket(0, 1, nil), map[string]any{"bucket": 1, "duration": "DAY", "resource": "urn:li:chart:(looker,1)", "metrics": map[string]any{}}}}, "datasetUsageStatistics"},
	}
	for _, tc := range bad {
		status, b := srv.do(t, "POST", "/usageStats?action="+tc.action, tc.body)
		if status != 400 || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s %s: %d %s, want 400 naming %q", tc.action, jsonString(tc.body), status, b, tc.want)
		}
	}
	// The refused batch wrote nothing.
	if r := queryUsage(t, srv, "queryRange", map[string]any{"resource": ds, "duration": "DAY", "rangeFromEnd": "ALL"}); *r.Value.Aggregations.TotalSQLQueries != 8 {
		t.Errorf("queries after a refused batch: %d", *r.Value.Aggregations.TotalSQLQueries)
	}
}

// TestUsageGraphQL runs the dataset page's usage queries, exactly as
// DataHub's web UI sends them: the usage of DataHub's BigQuery sample over
// all time, and usage reported through batchIngest over the last month in
// the dataset's statsSummary and usageStats.
func TestUsageGraphQL(t *testing.T) {
	datasetOp := uiOperation(t, "getDataset")
	lastMonthOp := uiOperation(t, "getLastMonthUsageAggregations")
	rangeOp := uiOperation(t, "getTimeRangeUsageAggregations")
	recentOp := uiOperation(t, "getRecentQueries")
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			newSampleReplay(srv).postFile(t, filepath.Join(samplesDir(t), "golden", "bigquery_usages_golden.json"))
			const sample = "urn:li:dataset:(urn:li:dataPlatform:bigquery,harshal-playground-306419.test_schema.excess_deaths_derived,PROD)"
			const ds = "urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)"
			today := time.Now().UTC().Truncate(24 * time.Hour).UnixMilli()
			bucket := func(daysAgo int64, queries int, users map[string]int) map[string]any {
				var us []any
				for u, n := range users {
					us = append(us, map[string]any{"user": u, "count": n, "userEmail": strings.TrimPrefix(u, "urn:li:corpuser:") + "@example.com"})
				}
				return map[string]any{"bucket": today - daysAgo*86400000, "duration": "DAY", "resource": ds, "metrics": map[string]any{
					"uniqueUserCount": len(users), "totalSqlQueries": queries, "topSqlQueries": []any{fmt.Sprintf("select %d", daysAgo)}, "users": us,
					"fields": []any{map[string]any{"fieldName": "id", "count": queries}, map[string]any{"fieldName": "total", "count": 1}},
				}}
			}
			srv.mustDo(t, 200, "POST", "/usageStats?action=batchIngest", map[string]any{"buckets": []any{
				bucket(40, 100, map[string]int{"urn:li:corpuser:old": 100}), // outside the last month
				bucket(2, 3, map[string]int{"urn:li:corpuser:a": 2, "urn:li:corpuser:b": 1}),
				bucket(1, 5, map[string]int{"urn:li:corpuser:a": 5}),
			}})
			srv.mustDo(t, 200, "POST", "/aspects?action=ingestProposal", map[string]any{"proposal": proposal(ds, "status", map[string]any{"removed": false})})

			type user struct{ URN string }
			var page struct {
				Dataset struct {
					URN        string
					UsageStats struct {
						Buckets []struct {
							Bucket  int64
							Metrics struct{ TotalSQLQueries *int }
						}
					}
					StatsSummary struct {
						QueryCountLast30Days      *int
						UniqueUserCountLast30Days *int
						TopUsersLast30Days        []user
					}
				}
			}
			decodeData(t, srv.gqlData(t, datasetOp, map[string]any{"urn": ds}), &page)
			s := page.Dataset.StatsSummary
			if s.QueryCountLast30Days == nil || *s.QueryCountLast30Days != 8 || s.UniqueUserCountLast30Days == nil || *s.UniqueUserCountLast30Days != 2 ||
				!slices.Equal(s.TopUsersLast30Days, []user{{"urn:li:corpuser:a"}, {"urn:li:corpuser:b"}}) {
				t.Errorf("getDataset statsSummary = %s, want 8 queries by 2 users, a first", jsonString(s))
			}
			var got []string
			for _, b := range page.Dataset.UsageStats.Buckets {
				n := -1
				if b.Metrics.TotalSQLQueries != nil {
					n = *b.Metrics.TotalSQLQueries
				}
				got = append(got, fmt.Sprintf("%d:%d", (today-b.Bucket)/86400000, n))
			}
			if want := []string{"2:3", "1:5"}; !slices.Equal(got, want) {
				t.Errorf("getDataset usageStats buckets (days ago:queries) = %q, want %q", got, want)
			}

			type aggregations struct {
				UniqueUserCount *int
				TotalSQLQueries *int
				Users           []struct {
					User      user
					Count     int
					UserEmail string
				}
				Fields []struct {
					FieldName string
					Count     int
				}
			}
			var month struct {
				Dataset struct {
					UsageStats struct{ Aggregations aggregations }
				}
			}
			// batchIngest keeps no user emails, as DataHub's does not.
			decodeData(t, srv.gqlData(t, lastMonthOp, map[string]any{"urn": ds}), &month)
			if a := month.Dataset.UsageStats.Aggregations; jsonString(a) !=
				`{"UniqueUserCount":2,"TotalSQLQueries":8,"Users":[{"User":{"URN":"urn:li:corpuser:a"},"Count":7,"UserEmail":""},{"User":{"URN":"urn:li:corpuser:b"},"Count":1,"UserEmail":""}],"Fields":[{"FieldName":"id","Count":8},{"FieldName":"total","Count":2}]}` {
				t.Errorf("getLastMonthUsageAggregations: %s", jsonString(a))
			}

			// The sample's usage, from 2021, shows over all time only.
			for _, tc := range []struct {
				timeRange       string
				queries, fields int
			}{{"ALL", 7, 12}, {"YEAR", 0, 0}} {
				var r struct {
					Dataset struct {
						UsageStats struct{ Aggregations aggregations }
					}
				}
				decodeData(t, srv.gqlData(t, rangeOp, map[string]any{"urn": sample, "timeRange": tc.timeRange}), &r)
				a := r.Dataset.UsageStats.Aggregations
				queries := 0
				if a.TotalSQLQueries != nil {
					queries = *a.TotalSQLQueries
				}
				if queries != tc.queries || len(a.Fields) != tc.fields ||
					(tc.queries > 0 && (len(a.Users) != 1 || a.Users[0].User.URN != "urn:li:corpuser:harshal" || a.Users[0].Count != 7 || a.Users[0].UserEmail != "harshal@acryl.io")) {
					t.Errorf("getTimeRangeUsageAggregations %s of the sample: %s, want %d queries over %d fields", tc.timeRange, jsonString(a), tc.queries, tc.fields)
				}
			}

			var recent struct {
				Dataset struct {
					UsageStats struct {
						Buckets []struct {
							Metrics struct{ TopSQLQueries []string }
						}
					}
				}
			}
			decodeData(t, srv.gqlData(t, recentOp, map[string]any{"urn": ds}), &recent)
			var queries []string
			for _, b := range recent.Dataset.UsageStats.Buckets {
				queries = append(queries, b.Metrics.TopSQLQueries...)
			}
			if want := []string{"select 2", "select 1"}; !slices.Equal(queries, want) {
				t.Errorf("getRecentQueries top queries = %q, want %q", queries, want)
			}
		})
	}
}
