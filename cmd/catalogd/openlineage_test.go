package main

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
)

// olEvent is an OpenLineage run event in the shape of the specification's
// examples, as the OpenLineage Airflow integration sends one when a task
// completes: two Postgres tables in, one out, with schemas, column
// lineage, the job's documentation and the DAG's tags.
const olEvent = `{
  "eventType": "COMPLETE",
  "eventTime": "2024-03-05T10:15:30.123Z",
  "run": {
    "runId": "3f5e83fa-3480-44ff-99c5-ff943904e5e8",
    "facets": {
      "airflow": {
        "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
        "_schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet",
        "dag": {"dag_id": "etl_orders", "owner": "data-eng", "tags": "['finance', 'Daily']", "schedule_interval": "@daily"},
        "task": {"task_id": "load_orders", "operator": "PostgresOperator"}
      }
    }
  },
  "job": {
    "namespace": "food_delivery",
    "name": "etl_orders.load_orders",
    "facets": {
      "documentation": {
        "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/DocumentationJobFacet.json",
        "description": "Summarises the day's orders by menu item."
      }
    }
  },
  "inputs": [
    {
      "namespace": "postgres://db.example.com:5432",
      "name": "food_delivery.public.orders",
      "facets": {
        "schema": {
          "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
          "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/SchemaDatasetFacet.json",
          "fields": [{"name": "id", "type": "int"}, {"name": "placed_on", "type": "timestamp"}, {"name": "menu_item_id", "type": "int"}]
        }
      }
    },
    {
      "namespace": "postgres://db.example.com:5432",
      "name": "food_delivery.public.menu_items",
      "facets": {
        "schema": {
          "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
          "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/SchemaDatasetFacet.json",
          "fields": [{"name": "id", "type": "int"}, {"name": "name", "type": "string"}]
        }
      }
    }
  ],
  "outputs": [
    {
      "namespace": "postgres://db.example.com:5432",
      "name": "food_delivery.public.orders_summary",
      "facets": {
        "schema": {
          "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
          "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/SchemaDatasetFacet.json",
          "fields": [{"name": "item", "type": "string"}, {"name": "order_count", "type": "long"}]
        },
        "columnLineage": {
          "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
          "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ColumnLineageDatasetFacet.json",
          "fields": {
            "order_count": {"inputFields": [{"namespace": "postgres://db.example.com:5432", "name": "food_delivery.public.orders", "field": "id"}]},
            "item": {"inputFields": [
              {"namespace": "postgres://db.example.com:5432", "name": "food_delivery.public.orders", "field": "menu_item_id"},
              {"namespace": "postgres://db.example.com:5432", "name": "food_delivery.public.menu_items", "field": "name"}
            ]}
          }
        }
      }
    }
  ],
  "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
  "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
}`

// aspectsOf reads the latest aspects of urn.
func aspectsOf(t *testing.T, srv *testServer, urn string) map[string]any {
	t.Helper()
	v2 := decode(t, srv.mustDo(t, 200, "GET", "/entitiesV2/"+pathEscape(urn), nil))
	out := map[string]any{}
	aspects, _ := v2["aspects"].(map[string]any)
	for name, env := range aspects {
		out[name] = env.(map[string]any)["value"]
	}
	return out
}

// TestOpenLineage posts an OpenLineage run event and checks the metadata a
// DataHub user would see: the pipeline and its task, the task's inputs and
// outputs with column-level lineage, the run, the datasets with their
// schemas, and lineage from the inputs through the task to the output.
func TestOpenLineage(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			_, start := pollEvents(t, srv, "pollTimeoutSeconds=0")
			srv.mustDo(t, 200, "POST", "/openapi/openlineage/api/v1/lineage", []byte(olEvent))

			ds := func(name string) string {
				return "urn:li:dataset:(urn:li:dataPlatform:postgres,food_delivery.public." + name + ",PROD)"
			}
			flow := "urn:li:dataFlow:(airflow,etl_orders,food_delivery)"
			job := "urn:li:dataJob:(" + flow + ",etl_orders.load_orders)"
			field := func(table, f string) string { return "urn:li:schemaField:(" + ds(table) + "," + f + ")" }

			f := aspectsOf(t, srv, flow)
			info, _ := f["dataFlowInfo"].(map[string]any)
			props, _ := info["customProperties"].(map[string]any)
			if info["name"] != "etl_orders" || info["description"] != "Summarises the day's orders by menu item." ||
				props["dag_id"] != "etl_orders" || props["owner"] != "data-eng" {
				t.Errorf("dataFlowInfo: %s", jsonString(info))
			}
			if got := jsonString(f["globalTags"]); got != `{"tags":[{"tag":"urn:li:tag:Daily"},{"tag":"urn:li:tag:finance"}]}` {
				t.Errorf("flow tags: %s", got)
			}

			j := aspectsOf(t, srv, job)
			jinfo, _ := j["dataJobInfo"].(map[string]any)
			jprops, _ := jinfo["customProperties"].(map[string]any)
			if jinfo["name"] != "load_orders" || jinfo["flowUrn"] != flow || jsonString(jinfo["type"]) != `{"string":"airflow"}` ||
				jprops["operator"] != "PostgresOperator" || jsonString(jinfo["created"]) != `{"time":1709633730123}` {
				t.Errorf("dataJobInfo: %s", jsonString(jinfo))
			}
			io, _ := j["dataJobInputOutput"].(map[string]any)
			dests := func(key string) []string {
				var out []string
				for _, e := range io[key].([]any) {
					out = append(out, e.(map[string]any)["destinationUrn"].(string))
				}
				return out
			}
			if got := dests("inputDatasetEdges"); !slices.Equal(got, []string{ds("menu_items"), ds("orders")}) {
				t.Errorf("inputs: %q", got)
			}
			if got := dests("outputDatasetEdges"); !slices.Equal(got, []string{ds("orders_summary")}) {
				t.Errorf("outputs: %q", got)
			}
			fgl := map[string][]string{}
			for _, l := range io["fineGrainedLineages"].([]any) {
				m := l.(map[string]any)
				var ups []string
				for _, u := range m["upstreams"].([]any) {
					ups = append(ups, u.(string))
				}
				fgl[m["downstreams"].([]any)[0].(string)] = ups
			}
			wantFGL := map[string][]string{
				field("orders_summary", "order_count"): {field("orders", "id")},
				field("orders_summary", "item"):        {field("menu_items", "name"), field("orders", "menu_item_id")},
			}
			if jsonString(fgl) != jsonString(wantFGL) {
				t.Errorf("column lineage:\n got  %s\n want %s", jsonString(fgl), jsonString(wantFGL))
			}

			out := aspectsOf(t, srv, ds("orders_summary"))
			schema, _ := out["schemaMetadata"].(map[string]any)
			var fields []string
			for _, f := range schema["fields"].([]any) {
				m := f.(map[string]any)
				fields = append(fields, m["fieldPath"].(string)+":"+m["nativeDataType"].(string)+":"+jsonString(m["type"]))
			}
			if strings.Join(fields, " ") != `item:string:{"type":{"com.linkedin.schema.StringType":{}}} order_count:long:{"type":{"com.linkedin.schema.NumberType":{}}}` ||
				schema["platform"] != "urn:li:dataPlatform:postgres" {
				t.Errorf("output schema: %s", jsonString(schema))
			}
			if jsonString(out["status"]) != `{"removed":false}` {
				t.Errorf("output status: %s", jsonString(out["status"]))
			}

			run := "urn:li:dataProcessInstance:3f5e83fa-3480-44ff-99c5-ff943904e5e8"
			r := aspectsOf(t, srv, run)
			if jsonString(r["dataProcessInstanceRelationships"]) != `{"parentTemplate":"`+job+`","upstreamInstances":[]}` ||
				jsonString(r["dataProcessInstanceInput"]) != `{"inputs":["`+ds("menu_items")+`","`+ds("orders")+`"]}` {
				t.Errorf("process instance: %s", jsonString(r))
			}
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
				map[string]any{"urn": run, "entity": "dataProcessInstance", "aspect": "dataProcessInstanceRunEvent"}), &ts); err != nil {
				t.Fatal(err)
			}
			if len(ts.Value.Values) != 1 || !strings.Contains(ts.Value.Values[0].Aspect.Value, `"result":{"nativeResultType":"COMPLETE","type":"SUCCESS"},"status":"COMPLETE","timestampMillis":1709633730123`) {
				t.Errorf("run event: %s", jsonString(ts.Value.Values))
			}

			// Lineage as DataHub's UI asks for it: upstream of the output,
			// the task, then the tables it reads.
			d := srv.gqlData(t, `{ searchAcrossLineage(input: {urn: "`+ds("orders_summary")+`", direction: UPSTREAM, query: "*"}) { total searchResults { degree entity { urn } } } }`, nil)
			var lineage []string
			for _, r := range d["searchAcrossLineage"].(map[string]any)["searchResults"].([]any) {
				m := r.(map[string]any)
				lineage = append(lineage, m["entity"].(map[string]any)["urn"].(string)+" "+jsonString(m["degree"]))
			}
			sort.Strings(lineage)
			want := []string{job + " 1", ds("menu_items") + " 2", ds("orders") + " 2"}
			if !slices.Equal(lineage, want) {
				t.Errorf("upstream lineage of the output:\n got  %q\n want %q", lineage, want)
			}
			// The event stream tells of the new entities and of the run.
			evs, next := pollEvents(t, srv, "pollTimeoutSeconds=0&offsetId="+url.QueryEscape(start))
			var created []string
			var runs []ece
			for _, e := range evs {
				switch {
				case e.Category == "LIFECYCLE" && e.Operation == "CREATE":
					created = append(created, e.EntityURN)
				case e.Category == "RUN":
					runs = append(runs, e)
				}
			}
			sort.Strings(created)
			if want := []string{flow, job, ds("menu_items"), ds("orders"), ds("orders_summary")}; !slices.Equal(created, want) {
				t.Errorf("entities created:\n got  %q\n want %q", created, want)
			}
			if len(runs) != 1 || runs[0].Operation != "COMPLETED" || runs[0].EntityURN != run || runs[0].EntityType != "dataProcessInstance" ||
				jsonString(runs[0].Parameters) != `{"dataJobUrn":"`+job+`","runResult":"SUCCESS"}` {
				t.Errorf("run events: %s", jsonString(runs))
			}
			// Replaying the event changes nothing but records the run again.
			srv.mustDo(t, 200, "POST", "/openapi/openlineage/api/v1/lineage", []byte(olEvent))
			if again, _ := pollEvents(t, srv, "pollTimeoutSeconds=0&offsetId="+url.QueryEscape(next)); len(again) != 1 || again[0].Category != "RUN" {
				t.Errorf("events of the replayed run event: %q", shortEvents(again))
			}
		})
	}
}

// TestOpenLineageBadEvents checks that events that cannot be recorded get
// a 400 naming what is wrong, and write nothing.
func TestOpenLineageBadEvents(t *testing.T) {
	srv := startServer(t)
	with := func(old, new string) []byte { return []byte(strings.Replace(olEvent, old, new, 1)) }
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"not JSON", []byte("{"), "malformed OpenLineage run event"},
		{"no job name", with(`"name": "etl_orders.load_orders"`, `"name": ""`), "job.namespace and job.name are required"},
		{"bad run id", with(`"runId": "3f5e83fa-3480-44ff-99c5-ff943904e5e8"`, `"runId": "run-1"`), "is not a UUID"},
		{"bad time", with(`"eventTime": "2024-03-05T10:15:30.123Z"`, `"eventTime": "yesterday"`), "is not an ISO 8601 date-time"},
		{"unknown producer", []byte(strings.ReplaceAll(olEvent, `"producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
  "schemaURL"`, `"producer": "https://example.com/my-tool",
  "schemaURL"`)), "cannot tell the orchestrator"},
	}
	for _, tc := range tests {
		status, b := srv.do(t, "POST", "/openapi/openlineage/api/v1/lineage", tc.body)
		if status != 400 || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %s, want 400 naming %q", tc.name, status, b, tc.want)
		}
	}
	if got := aspectsOf(t, srv, "urn:li:dataFlow:(airflow,etl_orders,food_delivery)"); got["dataFlowInfo"] != nil {
		t.Errorf("a refused event wrote its flow: %s", jsonString(got))
	}
}
