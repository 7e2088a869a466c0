package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	austinDS = "urn:li:dataset:(urn:li:dataPlatform:bigquery,harshal-playground-306419.test_schema.austin311_derived,PROD)"
	deathsDS = "urn:li:dataset:(urn:li:dataPlatform:bigquery,harshal-playground-306419.test_schema.excess_deaths_derived,PROD)"
)

// timeseriesResponse is the decoded getTimeseriesAspectValues response.
type timeseriesResponse struct {
	Value struct {
		EntityName, AspectName string
		StartTimeMillis        *int64
		EndTimeMillis          *int64
		Limit                  int
		Values                 []struct {
			Aspect struct {
				Value, ContentType string
			}
			SystemMetadata map[string]any
		}
	}
}

// timestamps returns the timestampMillis of each value, checking that each
// value is a JSON string holding an object, as DataHub's clients expect.
func (r timeseriesResponse) timestamps(t *testing.T) []int64 {
	t.Helper()
	out := make([]int64, len(r.Value.Values))
	for i, v := range r.Value.Values {
		var m struct {
			TimestampMillis int64 `json:"timestampMillis"`
		}
		if err := json.Unmarshal([]byte(v.Aspect.Value), &m); err != nil || m.TimestampMillis == 0 {
			t.Fatalf("value %d: aspect.value %q is not a serialized timeseries aspect: %v", i, v.Aspect.Value, err)
		}
		if v.Aspect.ContentType != "application/json" {
			t.Errorf("value %d: contentType %q", i, v.Aspect.ContentType)
		}
		if v.SystemMetadata == nil || v.SystemMetadata["lastObserved"] == nil {
			t.Errorf("value %d: systemMetadata %v, want one with lastObserved", i, v.SystemMetadata)
		}
		out[i] = m.TimestampMillis
	}
	return out
}

func getTimeseries(t *testing.T, srv *testServer, params map[string]any) timeseriesResponse {
	t.Helper()
	var r timeseriesResponse
	if err := json.Unmarshal(srv.mustDo(t, 200, "POST", "/aspects?action=getTimeseriesAspectValues", params), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// sampleTimestamps reads the timestampMillis of the values of one aspect of
// one entity in a sample file, newest first, independently of the server.
func sampleTimestamps(t *testing.T, path, urn, aspect string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		EntityURN  string `json:"entityUrn"`
		AspectName string `json:"aspectName"`
		Aspect     struct{ Value string }
	}
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, r := range recs {
		var v struct{ TimestampMillis int64 }
		if r.EntityURN != urn || r.AspectName != aspect || json.Unmarshal([]byte(r.Aspect.Value), &v) != nil {
			continue
		}
		if !slices.Contains(out, v.TimestampMillis) {
			out = append(out, v.TimestampMillis)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// between keeps the timestamps in [lo, hi] (0 = unbounded).
func between(ts []int64, lo, hi int64) []int64 {
	var out []int64
	for _, x := range ts {
		if (lo == 0 || x >= lo) && (hi == 0 || x <= hi) {
			out = append(out, x)
		}
	}
	return out
}

func TestTimeseriesAspectValues(t *testing.T) {
	dir := samplesDir(t)
	profilesFile := filepath.Join(dir, "demo-profiles.json")
	usageFile := filepath.Join(dir, "golden", "bigquery_usages_golden.json")
	profiles := sampleTimestamps(t, profilesFile, hdfsDS, "datasetProfile")
	usage := sampleTimestamps(t, usageFile, austinDS, "datasetUsageStatistics")
	if len(profiles) != 14 || len(usage) != 3 {
		t.Fatalf("samples changed: %d profiles, %d usage values", len(profiles), len(usage))
	}
	partition := func(field, cond string, values ...string) map[string]any {
		return map[string]any{"or": []any{map[string]any{"and": []any{
			map[string]any{"field": field, "values": values, "condition": cond}}}}}
	}
	for _, db := range testStores(t) {
		t.Run(db.name, func(t *testing.T) {
			srv := startServer(t, db.args...)
			replay := newSampleReplay(srv)
			replay.postFile(t, profilesFile)
			replay.postFile(t, usageFile)

			tests := []struct {
				name   string
				params map[string]any
				want   []int64
				limit  int
			}{
				{"all profiles newest first", map[string]any{}, profiles, 10000},
				{"time range", map[string]any{"startTimeMillis": profiles[9], "endTimeMillis": profiles[3]}, profiles[3:10], 10000},
				{"start only", map[string]any{"startTimeMillis": profiles[2]}, profiles[:3], 10000},
				{"end only", map[string]any{"endTimeMillis": profiles[11]}, profiles[11:], 10000},
				{"limit", map[string]any{"limit": 3}, profiles[:3], 3},
				{"range and limit", map[string]any{"startTimeMillis": profiles[9], "endTimeMillis": profiles[3], "limit": 2}, profiles[3:5], 2},
				{"latest value", map[string]any{"latestValue": true}, profiles[:1], 1},
				{"empty range", map[string]any{"startTimeMillis": profiles[0] + 1}, nil, 10000},
				{"timestamp filter", map[string]any{"filter": partition("timestampMillis", "GREATER_THAN", jsonString(profiles[4]))}, profiles[:4], 10000},
				{"timestamp filter with range", map[string]any{"endTimeMillis": profiles[1], "filter": partition("timestampMillis", "GREATER_THAN_OR_EQUAL_TO", jsonString(profiles[4]))}, profiles[1:5], 10000},
				{"or of two timestamps", map[string]any{"filter": map[string]any{"or": []any{
					map[string]any{"and": []any{map[string]any{"field": "timestampMillis", "value": jsonString(profiles[2])}}},
					map[string]any{"and": []any{map[string]any{"field": "timestampMillis", "value": jsonString(profiles[7]), "condition": "EQUAL"}}},
				}}}, []int64{profiles[2], profiles[7]}, 10000},
				{"ascending", map[string]any{"limit": 2, "sort": map[string]any{"field": "timestampMillis", "order": "ASCENDING"}}, []int64{profiles[13], profiles[12]}, 2},
				{"profiles have no partition", map[string]any{"filter": partition("partitionSpec.partition", "EQUAL", "FULL_TABLE_SNAPSHOT")}, nil, 10000},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					params := map[string]any{"urn": hdfsDS, "entity": "dataset", "aspect": "datasetProfile"}
					for k, v := range tt.params {
						params[k] = v
					}
					r := getTimeseries(t, srv, params)
					if got := r.timestamps(t); !slices.Equal(got, tt.want) {
						t.Errorf("timestamps %v, want %v", got, tt.want)
					}
					v := r.Value
					if v.EntityName != "dataset" || v.AspectName != "datasetProfile" || v.Limit != tt.limit {
						t.Errorf("entityName %q aspectName %q limit %d, want dataset, datasetProfile, %d", v.EntityName, v.AspectName, v.Limit, tt.limit)
					}
					// Range bounds are echoed exactly when given.
					for _, b := range []struct {
						name string
						got  *int64
					}{{"startTimeMillis", v.StartTimeMillis}, {"endTimeMillis", v.EndTimeMillis}} {
						sent, given := tt.params[b.name]
						if given != (b.got != nil) || (given && *b.got != sent.(int64)) {
							t.Errorf("%s echoed as %v, sent %v", b.name, b.got, sent)
						}
					}
				})
			}

			t.Run("bigquery usage with partition filters", func(t *testing.T) {
				base := map[string]any{"urn": austinDS, "entity": "dataset", "aspect": "datasetUsageStatistics"}
				with := func(extra map[string]any) map[string]any {
					m := map[string]any{}
					for k, v := range base {
						m[k] = v
					}
					for k, v := range extra {
						m[k] = v
					}
					return m
				}
				for _, tt := range []struct {
					name  string
					extra map[string]any
					want  []int64
				}{
					{"all", nil, usage},
					{"partition", map[string]any{"filter": partition("partitionSpec.partition", "EQUAL", "FULL_TABLE_SNAPSHOT")}, usage},
					{"partition and limit", map[string]any{"limit": 1, "filter": partition("partitionSpec.partition", "EQUAL", "FULL_TABLE_SNAPSHOT")}, usage[:1]},
					{"partition in range", map[string]any{"startTimeMillis": usage[1], "filter": partition("partitionSpec.partition", "EQUAL", "FULL_TABLE_SNAPSHOT")}, usage[:2]},
					{"other partition", map[string]any{"filter": partition("partitionSpec.partition", "EQUAL", "20210601")}, nil},
					{"partition list", map[string]any{"filter": partition("partitionSpec.partition", "IN", "20210601", "FULL_TABLE_SNAPSHOT")}, usage},
					{"negated partition", map[string]any{"filter": map[string]any{"or": []any{map[string]any{"and": []any{
						map[string]any{"field": "partitionSpec.partition", "value": "FULL_TABLE_SNAPSHOT", "negated": true}}}}}}, nil},
					{"legacy criteria with value", map[string]any{"filter": map[string]any{"criteria": []any{
						map[string]any{"field": "partitionSpec.partition", "value": "FULL_TABLE_SNAPSHOT", "condition": "EQUAL"}}}}, usage},
					{"message id", map[string]any{"filter": partition("messageId", "EQUAL", "none")}, nil},
				} {
					if got := getTimeseries(t, srv, with(tt.extra)).timestamps(t); !slices.Equal(got, tt.want) {
						t.Errorf("%s: timestamps %v, want %v", tt.name, got, tt.want)
					}
				}
				// Operations repeated at one timestamp and partition are one
				// value: the last one sent (upsert, never versioned).
				r := getTimeseries(t, srv, map[string]any{"urn": deathsDS, "entity": "dataset", "aspect": "operation"})
				if len(r.Value.Values) != 1 || !strings.Contains(r.Value.Values[0].Aspect.Value, "1622243780153") {
					t.Errorf("operations of excess_deaths_derived: %+v, want only the last one sent", r.Value.Values)
				}
			})

			t.Run("upsert replaces a value", func(t *testing.T) {
				ingestProposal(t, srv, "dataset", hdfsDS, "datasetProfile", `{"timestampMillis":`+jsonString(profiles[0])+`,"rowCount":7,"columnCount":1}`)
				r := getTimeseries(t, srv, map[string]any{"urn": hdfsDS, "entity": "dataset", "aspect": "datasetProfile"})
				if got := r.timestamps(t); !slices.Equal(got, profiles) {
					t.Fatalf("after the upsert: timestamps %v, want %v", got, profiles)
				}
				if !strings.Contains(r.Value.Values[0].Aspect.Value, `"rowCount":7`) {
					t.Errorf("after the upsert the newest value is %s", r.Value.Values[0].Aspect.Value)
				}
			})

			t.Run("bad requests", func(t *testing.T) {
				for _, tt := range []struct {
					name   string
					params map[string]any
					msg    string
				}{
					{"versioned aspect", map[string]any{"aspect": "datasetProperties"}, "datasetProperties is not a timeseries aspect"},
					{"aspect of another entity", map[string]any{"aspect": "dashboardUsageStatistics"}, "dashboardUsageStatistics"},
					{"unknown entity", map[string]any{"entity": "spaceship"}, "spaceship"},
					{"urn of another entity", map[string]any{"urn": chartBaz1}, "not a dataset URN"},
					{"missing aspect", map[string]any{"aspect": ""}, "required"},
					{"negative limit", map[string]any{"limit": -1}, "limit"},
					{"unsupported filter field", map[string]any{"filter": partition("rowCount", "EQUAL", "1")}, "unsupported field \\\"rowCount"},
					{"unsupported condition", map[string]any{"filter": partition("partitionSpec.partition", "CONTAIN", "FULL")}, "unsupported condition"},
					{"bad timestamp", map[string]any{"filter": partition("timestampMillis", "GREATER_THAN", "yesterday")}, "epoch-milliseconds"},
					{"unsupported sort", map[string]any{"sort": map[string]any{"field": "rowCount", "order": "ASCENDING"}}, "sort"},
					{"unknown parameter", map[string]any{"limits": 3}, "limits"},
				} {
					params := map[string]any{"urn": hdfsDS, "entity": "dataset", "aspect": "datasetProfile"}
					for k, v := range tt.params {
						params[k] = v
					}
					status, body := srv.do(t, "POST", "/aspects?action=getTimeseriesAspectValues", params)
					if status != 400 || !strings.Contains(string(body), tt.msg) {
						t.Errorf("%s: status %d %s, want 400 mentioning %q", tt.name, status, body, tt.msg)
					}
				}
			})
		})
	}
}
