package main

import (
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
)

// sparkEvent is an OpenLineage run event shaped as the OpenLineage Spark
// integration sends them for a Spark application that an Airflow task
// started: the run's spark_version, processing_engine and parent facets
// (the parent being the Airflow task's run), S3 datasets with schemas, and
// the output's column lineage. START carries the inputs and outputs known
// when the job starts; COMPLETE adds the column lineage.
func sparkEvent(eventType, eventTime string) string {
	const producer = "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/spark"
	out := `{
      "namespace": "s3://warehouse",
      "name": "marts/orders_by_day",
      "facets": {
        "schema": {"_producer": "` + producer + `", "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/SchemaDatasetFacet.json",
          "fields": [{"name": "day", "type": "date"}, {"name": "order_count", "type": "long"}, {"name": "revenue", "type": "decimal(18,2)"}]}`
	if eventType == "COMPLETE" {
		out += `,
        "columnLineage": {"_producer": "` + producer + `", "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ColumnLineageDatasetFacet.json",
          "fields": {
            "day": {"inputFields": [{"namespace": "s3://warehouse", "name": "raw/orders", "field": "placed_at"}]},
            "order_count": {"inputFields": [{"namespace": "s3://warehouse", "name": "raw/orders", "field": "id"}]},
            "revenue": {"inputFields": [{"namespace": "s3://warehouse", "name": "raw/orders", "field": "amount"}, {"namespace": "s3://warehouse", "name": "raw/fx_rates", "field": "rate"}]}
          }}`
	}
	out += `
      }
    }`
	return `{
  "eventType": "` + eventType + `",
  "eventTime": "` + eventTime + `",
  "run": {
    "runId": "0190b3f5-6a1e-7c3d-9a51-2d4e8f6b7c10",
    "facets": {
      "spark_version": {"_producer": "` + producer + `", "_schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet", "spark-version": "3.5.1"},
      "processing_engine": {"_producer": "` + producer + `", "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json",
        "version": "3.5.1", "name": "spark", "openlineageAdapterVersion": "1.9.0"},
      "parent": {"_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/ParentRunFacet.json",
        "run": {"runId": "0190b3f5-5f00-7a11-8c22-0a1b2c3d4e5f"},
        "job": {"namespace": "airflow_prod", "name": "orders_dag.aggregate_orders"}}
    }
  },
  "job": {
    "namespace": "spark_prod",
    "name": "orders_daily.execute_insert_into_hadoop_fs_relation_command.marts_orders_by_day",
    "facets": {
      "jobType": {"_producer": "` + producer + `", "_schemaURL": "https://openlineage.io/spec/facets/2-0-2/JobTypeJobFacet.json",
        "processingType": "BATCH", "integration": "SPARK", "jobType": "SQL_JOB"}
    }
  },
  "inputs": [
    {"namespace": "s3://warehouse", "name": "raw/orders", "facets": {"schema": {"_producer": "` + producer + `",
      "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/SchemaDatasetFacet.json",
      "fields": [{"name": "id", "type": "long"}, {"name": "placed_at", "type": "timestamp"}, {"name": "amount", "type": "decimal(18,2)"}]}}},
    {"namespace": "s3://warehouse", "name": "raw/fx_rates", "facets": {}}
  ],
  "outputs": [` + out + `],
  "producer": "` + producer + `",
  "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
}`
}

// airflowTaskEvent is the run event of the Airflow task that starts the
// Spark application, as the OpenLineage Airflow integration sends it.
const airflowTaskEvent = `{
  "eventType": "COMPLETE",
  "eventTime": "2024-06-01T02:10:00.000Z",
  "run": {"runId": "0190b3f5-5f00-7a11-8c22-0a1b2c3d4e5f", "facets": {}},
  "job": {"namespace": "airflow_prod", "name": "orders_dag.aggregate_orders", "facets": {}},
  "inputs": [],
  "outputs": [],
  "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow",
  "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
}`

// TestOpenLineageSpark posts a Spark application's START and COMPLETE run
// events, and its Airflow parent task's, and checks the flows, jobs, run,
// dataset and column lineage, and the link from the Spark job to the task
// that started it.
func TestOpenLineageSpark(t *testing.T) {
	for _, st := range testStores(t) {
		t.Run(st.name, func(t *testing.T) {
			srv := startServer(t, st.args...)
			_, start := pollEvents(t, srv, "pollTimeoutSeconds=0")
			for _, ev := range []string{airflowTaskEvent, sparkEvent("START", "2024-06-01T02:00:05.000Z"), sparkEvent("COMPLETE", "2024-06-01T02:04:45.500Z")} {
				srv.mustDo(t, 200, "POST", "/openapi/openlineage/api/v1/lineage", []byte(ev))
			}
			ds := func(path string) string { return "urn:li:dataset:(urn:li:dataPlatform:s3,warehouse/" + path + ",PROD)" }
			field := func(path, f string) string { return "urn:li:schemaField:(" + ds(path) + "," + f + ")" }
			flow := "urn:li:dataFlow:(spark,orders_daily,spark_prod)"
			job := "urn:li:dataJob:(" + flow + ",orders_daily.execute_insert_into_hadoop_fs_relation_command.marts_orders_by_day)"
			parent := "urn:li:dataJob:(urn:li:dataFlow:(airflow,orders_dag,airflow_prod),orders_dag.aggregate_orders)"
			run := "urn:li:dataProcessInstance:0190b3f5-6a1e-7c3d-9a51-2d4e8f6b7c10"

			f := aspectsOf(t, srv, flow)
			if info, _ := f["dataFlowInfo"].(map[string]any); info["name"] != "orders_daily" {
				t.Errorf("Spark flow: %s", jsonString(f))
			}
			j := aspectsOf(t, srv, job)
			jinfo, _ := j["dataJobInfo"].(map[string]any)
			jprops, _ := jinfo["customProperties"].(map[string]any)
			if jinfo["name"] != "execute_insert_into_hadoop_fs_relation_command.marts_orders_by_day" || jinfo["flowUrn"] != flow ||
				jsonString(jinfo["type"]) != `{"string":"spark"}` || jprops["processingEngine"] != "spark" || jprops["processingEngineVersion"] != "3.5.1" {
				t.Errorf("Spark job info: %s", jsonString(jinfo))
			}
			io, _ := j["dataJobInputOutput"].(map[string]any)
			dests := func(key string) []string {
				var out []string
				l, _ := io[key].([]any)
				for _, e := range l {
					out = append(out, e.(map[string]any)["destinationUrn"].(string))
				}
				return out
			}
			if got := dests("inputDatasetEdges"); !slices.Equal(got, []string{ds("raw/fx_rates"), ds("raw/orders")}) {
				t.Errorf("inputs: %q", got)
			}
			if got := dests("outputDatasetEdges"); !slices.Equal(got, []string{ds("marts/orders_by_day")}) {
				t.Errorf("outputs: %q", got)
			}
			if got := dests("inputDatajobEdges"); !slices.Equal(got, []string{parent}) {
				t.Errorf("upstream jobs: %q, want the parent Airflow task", got)
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
				field("marts/orders_by_day", "day"):         {field("raw/orders", "placed_at")},
				field("marts/orders_by_day", "order_count"): {field("raw/orders", "id")},
				field("marts/orders_by_day", "revenue"):     {field("raw/fx_rates", "rate"), field("raw/orders", "amount")},
			}
			if jsonString(fgl) != jsonString(wantFGL) {
				t.Errorf("column lineage:\n got  %s\n want %s", jsonString(fgl), jsonString(wantFGL))
			}
			out := aspectsOf(t, srv, ds("marts/orders_by_day"))
			schema, _ := out["schemaMetadata"].(map[string]any)
			var fields []string
			for _, f := range schema["fields"].([]any) {
				fields = append(fields, f.(map[string]any)["fieldPath"].(string))
			}
			if strings.Join(fields, ",") != "day,order_count,revenue" || schema["platform"] != "urn:li:dataPlatform:s3" {
				t.Errorf("output schema: %s", jsonString(schema))
			}

			// The run: one instance of the job with both run events.
			r := aspectsOf(t, srv, run)
			if jsonString(r["dataProcessInstanceRelationships"]) != `{"parentTemplate":"`+job+`","upstreamInstances":[]}` ||
				jsonString(r["dataProcessInstanceOutput"]) != `{"outputs":["`+ds("marts/orders_by_day")+`"]}` {
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
			var runEvents []string
			for _, v := range ts.Value.Values {
				runEvents = append(runEvents, v.Aspect.Value)
			}
			if len(runEvents) != 2 || !strings.Contains(runEvents[0], `"status":"COMPLETE","timestampMillis":1717207485500`) ||
				!strings.Contains(runEvents[1], `"status":"STARTED","timestampMillis":1717207205000`) {
				t.Errorf("run events, newest first: %q", runEvents)
			}

			// Lineage upstream of the output: the Spark job, then its input
			// tables and the Airflow task that started it.
			d := srv.gqlData(t, `{ searchAcrossLineage(input: {urn: "`+ds("marts/orders_by_day")+`", direction: UPSTREAM, query: "*"}) { searchResults { degree entity { urn } } } }`, nil)
			var lineage []string
			for _, r := range d["searchAcrossLineage"].(map[string]any)["searchResults"].([]any) {
				m := r.(map[string]any)
				lineage = append(lineage, m["entity"].(map[string]any)["urn"].(string)+" "+jsonString(m["degree"]))
			}
			sort.Strings(lineage)
			want := []string{ds("raw/fx_rates") + " 2", ds("raw/orders") + " 2", job + " 1", parent + " 2"}
			sort.Strings(want)
			if !slices.Equal(lineage, want) {
				t.Errorf("upstream lineage of the output:\n got  %q\n want %q", lineage, want)
			}

			// The event stream tells of the Spark run starting, then
			// completing.
			evs, _ := pollEvents(t, srv, "pollTimeoutSeconds=0&limit=200&offsetId="+url.QueryEscape(start))
			var runs []string
			for _, e := range evs {
				if e.Category == "RUN" && e.EntityURN == run {
					runs = append(runs, e.Operation)
				}
			}
			if !slices.Equal(runs, []string{"STARTED", "COMPLETED"}) {
				t.Errorf("run events of the Spark run: %q", runs)
			}
		})
	}
}
