package catalogtest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
)

// SearchFields is the field set RunSearchTests builds its engines with: a
// small model covering every kind of field the suite exercises.
var SearchFields = []catalog.SearchField{
	{Name: "name", Type: "WORD_GRAM", Boost: 10, QueryByDefault: true, Autocomplete: true},
	{Name: "description", Type: "TEXT", Boost: 1, QueryByDefault: true},
	{Name: "fieldPaths", Type: "TEXT", Boost: 1, QueryByDefault: true},
	{Name: "tags", Type: "URN", Boost: 0.5, QueryByDefault: true, Filter: true},
	{Name: "platform", Type: "URN", Boost: 1, QueryByDefault: true, Filter: true},
	{Name: "origin", Type: "TEXT_PARTIAL", Boost: 1, Filter: true},
	{Name: "customProperties", Type: "TEXT", Boost: 1, QueryByDefault: true},
	{Name: "rowCount", Type: "COUNT", Boost: 1},
	{Name: "deprecated", Type: "BOOLEAN", Boost: 1, Filter: true},
	{Name: "browsePaths", Type: "BROWSE_PATH", Boost: 1},
	{Name: "urn", Type: "URN", Boost: 1, QueryByDefault: true},
	{Name: "removed", Type: "BOOLEAN", Boost: 1},
}

// KeyedPrefix names the family of keyed fields the suite's documents
// hold (KeyedPrefix.<key>); engines that must be told of such families up
// front are told of KeyedSearchFields.
const KeyedPrefix = "structuredProperties"

// KeyedSearchFields are the families of keyed fields of the suite.
var KeyedSearchFields = []catalog.SearchField{{Name: KeyedPrefix, Type: "KEYWORD", Boost: 1, Filter: true}}

const (
	urnHive    = "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"
	urnKafka   = "urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)"
	urnUsers   = "urn:li:dataset:(urn:li:dataPlatform:hdfs,fct_users_created,DEV)"
	urnRemoved = "urn:li:dataset:(urn:li:dataPlatform:hive,RemovedDataset,PROD)"
	urnChart   = "urn:li:chart:(looker,baz1)"
)

func ds(urn, name, platform, origin string, paths ...string) catalog.Document {
	return catalog.Document{
		URN: urn, EntityType: "dataset",
		Fields: map[string][]any{
			"urn":      {urn},
			"name":     {name},
			"platform": {"urn:li:dataPlatform:" + platform},
			"origin":   {origin},
		},
		BrowsePaths: paths,
	}
}

// searchDocs is the corpus the read-only cases share.
func searchDocs() []catalog.Document {
	hive := ds(urnHive, "SampleHiveDataset", "hive", "PROD", "/prod/hive")
	hive.Fields["description"] = []any{"Sample hive table of the analytics team"}
	hive.Fields["tags"] = []any{"urn:li:tag:Legacy"}
	hive.Fields["fieldPaths"] = []any{"[version=2.0].[type=boolean].field_foo_2", "field_bar"}
	hive.Fields["rowCount"] = []any{float64(100)}
	hive.Fields["deprecated"] = []any{false}
	hive.Fields["customProperties"] = []any{"team=analytics", "tier=gold"}

	kafka := ds(urnKafka, "SampleKafkaDataset", "kafka", "PROD", "/prod/kafka")
	kafka.Fields["description"] = []any{"Events copied from the hive warehouse"}
	kafka.Fields["rowCount"] = []any{float64(2500.5)}
	kafka.Fields["deprecated"] = []any{true}

	users := ds(urnUsers, "fct_users_created", "hdfs", "DEV", "/dev/hdfs/warehouse", "/prod/hive")
	users.Fields["tags"] = []any{"urn:li:tag:Legacy", "urn:li:tag:NeedsDocs"}
	users.Fields["rowCount"] = []any{float64(5000)}

	removed := ds(urnRemoved, "RemovedDataset", "hive", "PROD", "/prod/hive")
	removed.Removed = true
	removed.Fields["description"] = []any{"A hive table that was soft deleted"}

	chart := catalog.Document{URN: urnChart, EntityType: "chart", Fields: map[string][]any{
		"urn": {urnChart}, "name": {"Baz Chart 1"}, "platform": {"urn:li:dataPlatform:looker"},
	}, BrowsePaths: []string{"/looker"}}
	return []catalog.Document{hive, kafka, users, removed, chart}
}

// flusher is implemented by eventually consistent engines: Flush returns once
// every write accepted before the call is visible to queries.
type flusher interface {
	Flush(ctx context.Context) error
}

func flush(t *testing.T, idx catalog.SearchIndex) {
	t.Helper()
	if f, ok := idx.(flusher); ok {
		if err := f.Flush(context.Background()); err != nil {
			t.Fatalf("flush: %v", err)
		}
	}
}

func seed(t *testing.T, idx catalog.SearchIndex, docs []catalog.Document) {
	t.Helper()
	if err := idx.Upsert(context.Background(), docs); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	flush(t, idx)
}

func urnsOf(res catalog.SearchResult) []string {
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.URN
	}
	return out
}

// textHits returns the URNs of the first 10 hits of a text search.
func textHits(t *testing.T, idx catalog.SearchIndex, text string) []string {
	t.Helper()
	res, err := idx.Search(context.Background(), catalog.SearchQuery{Text: text, Count: 10})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	return urnsOf(res)
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func or(cs ...catalog.Criterion) catalog.Filter { return catalog.Filter{Or: [][]catalog.Criterion{cs}} }

// RunSearchTests checks a catalog.SearchIndex against the port's contract.
// open returns an empty engine built with the given fields (SearchFields),
// isolated from every other call's.
func RunSearchTests(t *testing.T, open func(t *testing.T, fields []catalog.SearchField) catalog.SearchIndex) {
	ctx := context.Background()
	shared := open(t, SearchFields)
	seed(t, shared, searchDocs())

	search := func(t *testing.T, q catalog.SearchQuery) catalog.SearchResult {
		t.Helper()
		if q.Count == 0 {
			q.Count = 10
		}
		res, err := shared.Search(ctx, q)
		if err != nil {
			t.Fatalf("search %+v: %v", q, err)
		}
		return res
	}

	t.Run("UpsertReplaceDelete", func(t *testing.T) {
		idx := open(t, SearchFields)
		d := ds("urn:li:dataset:(urn:li:dataPlatform:hive,t1,PROD)", "alpha_table", "hive", "PROD")
		seed(t, idx, []catalog.Document{d})
		if got := textHits(t, idx, "alpha"); len(got) != 1 {
			t.Fatalf("after upsert, search alpha = %v, want the document", got)
		}
		d.Fields["name"] = []any{"beta_table"}
		seed(t, idx, []catalog.Document{d})
		if got := textHits(t, idx, "alpha"); len(got) != 0 {
			t.Errorf("after replace, search alpha = %v, want nothing (old words must go)", got)
		}
		if got := textHits(t, idx, "beta"); len(got) != 1 {
			t.Errorf("after replace, search beta = %v, want the document", got)
		}
		if err := idx.Delete(ctx, []string{d.URN, "urn:li:dataset:(urn:li:dataPlatform:x,unknown,PROD)"}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		flush(t, idx)
		if got := textHits(t, idx, "beta"); len(got) != 0 {
			t.Errorf("after delete, search beta = %v, want nothing", got)
		}
	})

	t.Run("TypeNoLongerStored", func(t *testing.T) {
		// A type whose documents were all deleted answers as a type never
		// stored: an engine may remember which types it has found.
		idx := open(t, SearchFields)
		d := ds("urn:li:dataset:(urn:li:dataPlatform:hive,gone,PROD)", "gone_table", "hive", "PROD")
		seed(t, idx, []catalog.Document{d, {URN: "urn:li:chart:(looker,kept)", EntityType: "chart", Fields: map[string][]any{"name": {"gone kept"}}}})
		queries := []catalog.SearchQuery{
			{Text: "*", Count: 10, Facets: []string{"platform", "origin"}, EntityCounts: true},
			{Text: "gone", Count: 10, Facets: []string{"platform", "origin"}, EntityCounts: true},
		}
		run := func(q catalog.SearchQuery, types ...string) catalog.SearchResult {
			t.Helper()
			q.EntityTypes = types
			res, err := idx.Search(ctx, q)
			if err != nil {
				t.Fatalf("search %+v: %v", q, err)
			}
			return res
		}
		for _, q := range queries {
			if res := run(q, "dataset"); res.Total != 1 {
				t.Fatalf("search %q of datasets: total %d, want 1", q.Text, res.Total)
			}
		}
		if err := idx.Delete(ctx, []string{d.URN}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		flush(t, idx)
		for _, q := range queries {
			got, want := run(q, "dataset"), run(q, "glossaryTerm")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("search %q of datasets, all deleted:\n got %+v\nwant %+v (as for a type never stored)", q.Text, got, want)
			}
			if got := run(q, "dataset", "chart"); got.Total != 1 {
				t.Errorf("search %q of datasets and charts: total %d, want the chart", q.Text, got.Total)
			}
		}
	})

	t.Run("EntityCounts", func(t *testing.T) {
		for _, tc := range []struct {
			text  string
			types []string
		}{
			{"*", nil}, {"sample", nil}, {"hive", []string{"dataset"}}, {"baz", []string{"dataset", "chart"}},
			{"*", []string{"tag", "corpuser"}}, {"nonexistentword", nil},
		} {
			res := search(t, catalog.SearchQuery{Text: tc.text, EntityTypes: tc.types, EntityCounts: true})
			if res.EntityCounts == nil {
				continue // the engine does not count them
			}
			want := map[string]int{}
			for _, e := range []string{"dataset", "chart", "tag", "corpuser"} {
				if len(tc.types) > 0 && !slices.Contains(tc.types, e) {
					continue
				}
				if n := search(t, catalog.SearchQuery{Text: tc.text, EntityTypes: []string{e}}).Total; n > 0 {
					want[e] = n
				}
			}
			if !reflect.DeepEqual(res.EntityCounts, want) {
				t.Errorf("search %q in %v: entity counts %v, want %v (total %d)", tc.text, tc.types, res.EntityCounts, want, res.Total)
			}
		}
		if res := search(t, catalog.SearchQuery{Text: "*"}); res.EntityCounts != nil {
			t.Errorf("entity counts %v without being asked", res.EntityCounts)
		}
	})

	t.Run("Text", func(t *testing.T) {
		tests := []struct {
			name, text string
			types      []string
			want       []string // exact order when ordered
			ordered    bool
		}{
			{"all", "*", nil, []string{urnChart, urnUsers, urnHive, urnKafka}, false},
			{"empty is all", "", []string{"dataset"}, []string{urnUsers, urnHive, urnKafka}, false},
			{"camel case part", "hive", []string{"dataset"}, []string{urnHive, urnKafka}, false},
			{"boost ranks name first", "hive table", []string{"dataset"}, []string{urnHive}, true},
			{"underscore words", "users created", nil, []string{urnUsers}, true},
			{"field path", "field_foo_2", nil, []string{urnHive}, true},
			{"prefix", "SampleKaf", nil, []string{urnKafka}, true},
			// As a user types: every word but the last is a whole word.
			{"last word a prefix", "sample kaf", nil, []string{urnKafka}, true},
			{"earlier words whole", "samp kafka", nil, nil, true},
			{"description word", "analytics", nil, []string{urnHive}, true},
			{"entity type", "baz", []string{"chart"}, []string{urnChart}, true},
			{"no match", "nonexistentword", nil, nil, true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := urnsOf(search(t, catalog.SearchQuery{Text: tc.text, EntityTypes: tc.types}))
				if !tc.ordered {
					got, tc.want = sorted(got), sorted(tc.want)
				}
				if len(got) == 0 && len(tc.want) == 0 {
					return
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("search %q in %v = %v, want %v", tc.text, tc.types, got, tc.want)
				}
			})
		}
		// The name match (boost 10) outranks a description match (boost 1).
		got := urnsOf(search(t, catalog.SearchQuery{Text: "hive", EntityTypes: []string{"dataset"}}))
		if len(got) == 0 || got[0] != urnHive {
			t.Errorf("search hive ranks %v, want %s first", got, urnHive)
		}
		res := search(t, catalog.SearchQuery{Text: "SampleHiveDataset"})
		if len(res.Hits) == 0 || res.Hits[0].URN != urnHive {
			t.Fatalf("search SampleHiveDataset = %v", urnsOf(res))
		}
		found := false
		for _, m := range res.Hits[0].MatchedFields {
			if m.Name == "name" && m.Value == "SampleHiveDataset" {
				found = true
			}
		}
		if !found {
			t.Errorf("matched fields %+v lack name=SampleHiveDataset", res.Hits[0].MatchedFields)
		}
	})

	t.Run("BoostRanking", func(t *testing.T) {
		// The URNs sort in the opposite order of the expected ranking, so
		// an engine that ignores the fields' boosts (ordering by URN) fails.
		idx := open(t, SearchFields)
		doc := func(id, name, description string) catalog.Document {
			urn := "urn:li:dataset:(urn:li:dataPlatform:hive," + id + ",PROD)"
			return catalog.Document{URN: urn, EntityType: "dataset", Fields: map[string][]any{
				"urn": {urn}, "name": {name}, "description": {description}}}
		}
		inDescription := doc("a1", "misc_report", "zephyr orders of the week")
		oneInName := doc("b2", "zephyr_list", "open orders")
		bothInName := doc("c3", "zephyr_orders_daily", "a daily extract")
		seed(t, idx, []catalog.Document{inDescription, oneInName, bothInName})
		// Name (boost 10) before description (boost 1).
		if got := textHits(t, idx, "zephyr"); len(got) != 3 || got[2] != inDescription.URN {
			t.Errorf("search zephyr = %v, want the two name matches before %s", got, inDescription.URN)
		}
		// Both words in the name before one or none.
		if got := textHits(t, idx, "zephyr orders"); len(got) != 3 || got[0] != bothInName.URN || got[2] == bothInName.URN {
			t.Errorf("search zephyr orders = %v, want %s first", got, bothInName.URN)
		}
	})

	t.Run("Conditions", func(t *testing.T) {
		c := func(field, cond string, neg bool, vals ...string) catalog.Criterion {
			return catalog.Criterion{Field: field, Condition: cond, Negated: neg, Values: vals}
		}
		datasets := []string{"dataset"}
		tests := []struct {
			name string
			f    catalog.Filter
			want []string
		}{
			{"EQUAL", or(c("platform", "EQUAL", false, "urn:li:dataPlatform:kafka")), []string{urnKafka}},
			{"default is EQUAL", or(c("origin", "", false, "DEV")), []string{urnUsers}},
			{"EQUAL any value", or(c("tags", "EQUAL", false, "urn:li:tag:NeedsDocs", "urn:li:tag:Legacy")), []string{urnHive, urnUsers}},
			{"EQUAL is case sensitive", or(c("origin", "EQUAL", false, "dev")), nil},
			{"IEQUAL", or(c("origin", "IEQUAL", false, "dev")), []string{urnUsers}},
			{"IN", or(c("origin", "IN", false, "DEV", "PROD")), []string{urnHive, urnKafka, urnUsers}},
			{"negated EQUAL", or(c("origin", "EQUAL", true, "PROD")), []string{urnUsers}},
			{"CONTAIN", or(c("name", "CONTAIN", false, "users")), []string{urnUsers}},
			{"CONTAIN ignores case", or(c("name", "CONTAIN", false, "KAFKA")), []string{urnKafka}},
			{"START_WITH", or(c("name", "START_WITH", false, "Sample")), []string{urnHive, urnKafka}},
			{"END_WITH", or(c("tags", "END_WITH", false, ":NeedsDocs")), []string{urnUsers}},
			{"negated START_WITH", or(c("name", "START_WITH", true, "Sample")), []string{urnUsers}},
			{"GREATER_THAN", or(c("rowCount", "GREATER_THAN", false, "2500.5")), []string{urnUsers}},
			{"GREATER_THAN_OR_EQUAL_TO", or(c("rowCount", "GREATER_THAN_OR_EQUAL_TO", false, "2500.5")), []string{urnKafka, urnUsers}},
			{"LESS_THAN", or(c("rowCount", "LESS_THAN", false, "2500.5")), []string{urnHive}},
			{"LESS_THAN_OR_EQUAL_TO", or(c("rowCount", "LESS_THAN_OR_EQUAL_TO", false, "100")), []string{urnHive}},
			{"numeric EQUAL", or(c("rowCount", "EQUAL", false, "5000")), []string{urnUsers}},
			{"BOOLEAN", or(c("deprecated", "EQUAL", false, "true")), []string{urnKafka}},
			{"EXISTS", or(c("tags", "EXISTS", false)), []string{urnHive, urnUsers}},
			{"IS_NULL", or(c("tags", "IS_NULL", false)), []string{urnKafka}},
			{"negated EXISTS", or(c("description", "EXISTS", true)), []string{urnUsers}},
			{"urn", or(c("urn", "EQUAL", false, urnKafka)), []string{urnKafka}},
			{"AND", or(c("origin", "EQUAL", false, "PROD"), c("platform", "EQUAL", false, "urn:li:dataPlatform:hive")), []string{urnHive}},
			{"OR of ANDs", catalog.Filter{Or: [][]catalog.Criterion{
				{c("origin", "EQUAL", false, "PROD"), c("platform", "EQUAL", false, "urn:li:dataPlatform:kafka")},
				{c("origin", "EQUAL", false, "DEV")},
			}}, []string{urnKafka, urnUsers}},
			{"unknown field matches nothing", or(c("nosuchfield", "EQUAL", false, "x")), nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := urnsOf(search(t, catalog.SearchQuery{EntityTypes: datasets, Filter: tc.f}))
				if !reflect.DeepEqual(sorted(got), sorted(tc.want)) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("filter %+v = %v, want %v", tc.f, sorted(got), sorted(tc.want))
				}
			})
		}
		bad := []struct {
			name string
			f    catalog.Filter
		}{
			{"non-numeric range value", or(c("rowCount", "GREATER_THAN", false, "many"))},
			{"unknown condition", or(c("rowCount", "ABOUT", false, "1"))},
		}
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				_, err := shared.Search(ctx, catalog.SearchQuery{Filter: tc.f, Count: 10})
				if catalog.KindOf(err) != catalog.Invalid {
					t.Errorf("filter %+v: error %v, want kind Invalid", tc.f, err)
				}
			})
		}
	})

	// Keyed fields are a family the engine is not told of one by one: a
	// field per key, prefix.key (structured property values, a field per
	// property), whose values are strings or numbers.
	t.Run("KeyedFields", func(t *testing.T) {
		idx := open(t, SearchFields)
		hive := ds(urnHive, "SampleHiveDataset", "hive", "PROD")
		hive.Fields[KeyedPrefix+".retention"] = []any{float64(90)}
		hive.Fields[KeyedPrefix+".team"] = []any{"payments", "billing"}
		kafka := ds(urnKafka, "SampleKafkaDataset", "kafka", "PROD")
		kafka.Fields[KeyedPrefix+".retention"] = []any{float64(30)}
		kafka.Fields[KeyedPrefix+".team"] = []any{"Marketing"}
		users := ds(urnUsers, "fct_users_created", "hdfs", "DEV")
		seed(t, idx, []catalog.Document{hive, kafka, users})
		c := func(key, cond string, neg bool, vals ...string) catalog.Criterion {
			return catalog.Criterion{Field: KeyedPrefix + "." + key, Condition: cond, Negated: neg, Values: vals}
		}
		tests := []struct {
			name string
			f    catalog.Filter
			want []string
		}{
			{"EQUAL a string", or(c("team", "EQUAL", false, "payments")), []string{urnHive}},
			{"EQUAL is case sensitive", or(c("team", "EQUAL", false, "marketing")), nil},
			{"IEQUAL", or(c("team", "IEQUAL", false, "marketing")), []string{urnKafka}},
			{"EQUAL a number", or(c("retention", "EQUAL", false, "90")), []string{urnHive}},
			{"IN", or(c("team", "IN", false, "billing", "Marketing")), []string{urnHive, urnKafka}},
			{"GREATER_THAN", or(c("retention", "GREATER_THAN", false, "60")), []string{urnHive}},
			{"LESS_THAN_OR_EQUAL_TO", or(c("retention", "LESS_THAN_OR_EQUAL_TO", false, "30")), []string{urnKafka}},
			{"EXISTS", or(c("retention", "EXISTS", false)), []string{urnHive, urnKafka}},
			{"IS_NULL", or(c("retention", "IS_NULL", false)), []string{urnUsers}},
			{"negated EQUAL", or(c("team", "EQUAL", true, "payments")), []string{urnKafka, urnUsers}},
			{"CONTAIN", or(c("team", "CONTAIN", false, "market")), []string{urnKafka}},
			{"another key", or(c("owner", "EXISTS", false)), nil},
			{"AND with a declared field", or(c("retention", "EXISTS", false), catalog.Criterion{Field: "platform", Values: []string{"urn:li:dataPlatform:kafka"}}), []string{urnKafka}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				res, err := idx.Search(ctx, catalog.SearchQuery{EntityTypes: []string{"dataset"}, Filter: tc.f, Count: 10})
				if err != nil {
					t.Fatalf("search %+v: %v", tc.f, err)
				}
				if got := urnsOf(res); !reflect.DeepEqual(sorted(got), sorted(tc.want)) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("filter %+v = %v, want %v", tc.f, sorted(got), sorted(tc.want))
				}
			})
		}
	})

	t.Run("FilterWithText", func(t *testing.T) {
		got := urnsOf(search(t, catalog.SearchQuery{Text: "legacy", Filter: or(catalog.Criterion{Field: "origin", Values: []string{"DEV"}})}))
		if !reflect.DeepEqual(got, []string{urnUsers}) {
			t.Errorf("legacy + origin=DEV = %v, want [%s]", got, urnUsers)
		}
	})

	t.Run("Facets", func(t *testing.T) {
		res := search(t, catalog.SearchQuery{EntityTypes: []string{"dataset"}, Facets: []string{"platform", "tags", "origin"}})
		want := map[string]map[string]int{
			"platform": {"urn:li:dataPlatform:hive": 1, "urn:li:dataPlatform:kafka": 1, "urn:li:dataPlatform:hdfs": 1},
			"tags":     {"urn:li:tag:Legacy": 2, "urn:li:tag:NeedsDocs": 1},
			"origin":   {"PROD": 2, "DEV": 1},
		}
		if !reflect.DeepEqual(res.Facets, want) {
			t.Errorf("facets = %v, want %v", res.Facets, want)
		}
		res = search(t, catalog.SearchQuery{Text: "kafka", EntityTypes: []string{"dataset"}, Facets: []string{"platform"}})
		if want := map[string]int{"urn:li:dataPlatform:kafka": 1}; !reflect.DeepEqual(res.Facets["platform"], want) {
			t.Errorf("facets of the kafka hits = %v, want %v", res.Facets["platform"], want)
		}
	})

	t.Run("Paging", func(t *testing.T) {
		var all []string
		for start := 0; start < 6; start += 2 {
			res := search(t, catalog.SearchQuery{Start: start, Count: 2})
			if res.Total != 4 {
				t.Fatalf("page at %d: total %d, want 4", start, res.Total)
			}
			if want := min(2, max(0, 4-start)); len(res.Hits) != want {
				t.Fatalf("page at %d: %d hits, want %d", start, len(res.Hits), want)
			}
			all = append(all, urnsOf(res)...)
		}
		if want := []string{urnChart, urnHive, urnKafka, urnUsers}; !reflect.DeepEqual(sorted(all), sorted(want)) {
			t.Errorf("pages hold %v, want each document once: %v", all, want)
		}
		res := search(t, catalog.SearchQuery{Start: 100, Count: 10})
		if res.Total != 4 || len(res.Hits) != 0 {
			t.Errorf("page past the end: total %d, %d hits; want 4, 0", res.Total, len(res.Hits))
		}
		if _, err := shared.Search(ctx, catalog.SearchQuery{Start: -1, Count: 10}); catalog.KindOf(err) != catalog.Invalid {
			t.Errorf("negative start: %v, want Invalid", err)
		}
	})

	t.Run("Removed", func(t *testing.T) {
		if got := urnsOf(search(t, catalog.SearchQuery{Text: "RemovedDataset"})); len(got) != 0 {
			t.Errorf("soft-deleted document found by default: %v", got)
		}
		got := urnsOf(search(t, catalog.SearchQuery{Filter: or(catalog.Criterion{Field: "removed", Values: []string{"true"}})}))
		if !reflect.DeepEqual(got, []string{urnRemoved}) {
			t.Errorf("removed=true = %v, want [%s]", got, urnRemoved)
		}
		got = urnsOf(search(t, catalog.SearchQuery{EntityTypes: []string{"dataset"}, Filter: or(catalog.Criterion{Field: "removed", Values: []string{"false"}})}))
		if want := sorted([]string{urnHive, urnKafka, urnUsers}); !reflect.DeepEqual(sorted(got), want) {
			t.Errorf("removed=false = %v, want %v", got, want)
		}
		sugg, err := shared.Autocomplete(ctx, catalog.AutocompleteQuery{Query: "Remov", Limit: 10})
		if err != nil || len(sugg) != 0 {
			t.Errorf("autocomplete of a soft-deleted name = %v, %v; want nothing", sugg, err)
		}
		br, err := shared.Browse(ctx, catalog.BrowseQuery{EntityType: "dataset", Path: "/prod/hive", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range br.URNs {
			if u == urnRemoved {
				t.Errorf("browse shows the soft-deleted %s", u)
			}
		}
		// Undo: the same document with Removed false is found again.
		idx := open(t, SearchFields)
		d := searchDocs()[3]
		seed(t, idx, []catalog.Document{d})
		d.Removed = false
		seed(t, idx, []catalog.Document{d})
		res, err := idx.Search(ctx, catalog.SearchQuery{Text: "RemovedDataset", Count: 10})
		if err != nil || len(res.Hits) != 1 {
			t.Errorf("after undo, search = %v, %v; want the document", urnsOf(res), err)
		}
	})

	t.Run("Autocomplete", func(t *testing.T) {
		tests := []struct {
			query, field string
			types        []string
			limit        int
			want         []string
		}{
			{"Sample", "", nil, 10, []string{"SampleHiveDataset", "SampleKafkaDataset"}},
			{"samplek", "", nil, 10, []string{"SampleKafkaDataset"}},
			{"fct_us", "", []string{"dataset"}, 10, []string{"fct_users_created"}},
			{"baz", "", []string{"dataset"}, 10, nil},
			{"baz ch", "name", []string{"chart"}, 10, []string{"Baz Chart 1"}},
			{"ba ch", "name", []string{"chart"}, 10, nil}, // only the last word is a prefix
			{"Sample", "", nil, 1, nil},                   // one of the two
			{"zzz", "", nil, 10, nil},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%v/%d", tc.query, tc.types, tc.limit), func(t *testing.T) {
				sugg, err := shared.Autocomplete(ctx, catalog.AutocompleteQuery{Query: tc.query, Field: tc.field, EntityTypes: tc.types, Limit: tc.limit})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, s := range sugg {
					got = append(got, s.Text)
					if s.URN == "" {
						t.Errorf("suggestion %q has no URN", s.Text)
					}
				}
				if tc.limit == 1 {
					if len(got) != 1 {
						t.Errorf("limit 1: %v", got)
					}
					return
				}
				if !reflect.DeepEqual(sorted(got), sorted(tc.want)) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("autocomplete %q = %v, want %v", tc.query, got, tc.want)
				}
			})
		}
	})

	t.Run("Browse", func(t *testing.T) {
		tests := []struct {
			path         string
			start, limit int
			want         catalog.BrowseResult
		}{
			{"/", 0, 10, catalog.BrowseResult{
				Groups:    []catalog.BrowseGroup{{Name: "dev", Count: 1}, {Name: "prod", Count: 3}},
				URNs:      []string{},
				NumGroups: 2, NumEntities: 0, Total: 3,
			}},
			{"/prod", 0, 10, catalog.BrowseResult{
				Groups:    []catalog.BrowseGroup{{Name: "hive", Count: 2}, {Name: "kafka", Count: 1}},
				URNs:      []string{},
				NumGroups: 2, NumEntities: 0, Total: 3,
			}},
			{"/prod/hive", 0, 10, catalog.BrowseResult{
				Groups: []catalog.BrowseGroup{}, URNs: []string{urnUsers, urnHive},
				NumGroups: 0, NumEntities: 2, Total: 0,
			}},
			{"prod/hive/", 1, 10, catalog.BrowseResult{
				Groups: []catalog.BrowseGroup{}, URNs: []string{urnHive},
				NumGroups: 0, NumEntities: 2, Total: 0,
			}},
			{"/prod", 1, 1, catalog.BrowseResult{
				Groups: []catalog.BrowseGroup{{Name: "kafka", Count: 1}}, URNs: []string{},
				NumGroups: 2, NumEntities: 0, Total: 3,
			}},
			{"/nowhere", 0, 10, catalog.BrowseResult{Groups: []catalog.BrowseGroup{}, URNs: []string{}}},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s@%d+%d", tc.path, tc.start, tc.limit), func(t *testing.T) {
				got, err := shared.Browse(ctx, catalog.BrowseQuery{EntityType: "dataset", Path: tc.path, Start: tc.start, Limit: tc.limit})
				if err != nil {
					t.Fatal(err)
				}
				if got.Groups == nil {
					got.Groups = []catalog.BrowseGroup{}
				}
				if got.URNs == nil {
					got.URNs = []string{}
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("browse %s = %+v, want %+v", tc.path, got, tc.want)
				}
			})
		}
		// Paging spans groups then entities.
		idx := open(t, SearchFields)
		var docs []catalog.Document
		for i := 0; i < 3; i++ {
			docs = append(docs, ds(fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:s3,leaf%d,PROD)", i), fmt.Sprint("leaf", i), "s3", "PROD", "/a"))
		}
		docs = append(docs, ds("urn:li:dataset:(urn:li:dataPlatform:s3,deep,PROD)", "deep", "s3", "PROD", "/a/b"))
		seed(t, idx, docs)
		got, err := idx.Browse(ctx, catalog.BrowseQuery{EntityType: "dataset", Path: "/a", Start: 0, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Groups) != 1 || got.Groups[0] != (catalog.BrowseGroup{Name: "b", Count: 1}) || len(got.URNs) != 1 || got.NumEntities != 3 || got.NumGroups != 1 || got.Total != 1 {
			t.Errorf("browse /a [0,2) = %+v; want group b(1) then one entity, 3 entities, 1 group, 1 below", got)
		}
		got, err = idx.Browse(ctx, catalog.BrowseQuery{EntityType: "dataset", Path: "/a", Start: 2, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Groups) != 0 || len(got.URNs) != 2 {
			t.Errorf("browse /a [2,7) = %+v; want the last two entities", got)
		}
	})
}
