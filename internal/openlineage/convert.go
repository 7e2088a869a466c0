// Package openlineage turns OpenLineage run events (as Airflow, Spark and
// the other OpenLineage integrations send them) into DataHub metadata, as
// DataHub's OpenLineage endpoint does: the job's pipeline becomes a data
// flow, the job a data job whose inputs and outputs (with column-level
// lineage) are the event's datasets, the run a data process instance with
// its run event, and every dataset is materialized with its schema. The
// lineage a DataHub user sees then runs from the input datasets through the
// job to the outputs.
package openlineage

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
)

// RunEvent is the part of an OpenLineage RunEvent the conversion reads.
type RunEvent struct {
	EventType string `json:"eventType"`
	EventTime string `json:"eventTime"`
	Producer  string `json:"producer"`
	Run       struct {
		RunID  string                     `json:"runId"`
		Facets map[string]json.RawMessage `json:"facets"`
	} `json:"run"`
	Job struct {
		Namespace string                     `json:"namespace"`
		Name      string                     `json:"name"`
		Facets    map[string]json.RawMessage `json:"facets"`
	} `json:"job"`
	Inputs  []Dataset `json:"inputs"`
	Outputs []Dataset `json:"outputs"`
}

// Dataset is an input or output of a run event.
type Dataset struct {
	Namespace string                     `json:"namespace"`
	Name      string                     `json:"name"`
	Facets    map[string]json.RawMessage `json:"facets"`
}

// datahubActor is the actor DataHub stamps converted lineage with.
const datahubActor = "urn:li:corpuser:datahub"

// Parse decodes and checks a run event.
func Parse(body []byte) (*RunEvent, error) {
	var e RunEvent
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&e); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "malformed OpenLineage run event: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	switch {
	case e.Job.Namespace == "" || e.Job.Name == "":
		return nil, catalog.Errorf(catalog.Invalid, "OpenLineage run event: job.namespace and job.name are required")
	case e.Run.RunID == "":
		return nil, catalog.Errorf(catalog.Invalid, "OpenLineage run event: run.runId is required")
	case e.EventTime == "":
		return nil, catalog.Errorf(catalog.Invalid, "OpenLineage run event: eventTime is required")
	case e.Producer == "":
		return nil, catalog.Errorf(catalog.Invalid, "OpenLineage run event: producer is required")
	}
	if _, err := time.Parse(time.RFC3339Nano, e.EventTime); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "OpenLineage run event: eventTime %q is not an ISO 8601 date-time", e.EventTime)
	}
	if !uuidPattern.MatchString(e.Run.RunID) {
		return nil, catalog.Errorf(catalog.Invalid, "OpenLineage run event: run.runId %q is not a UUID", e.Run.RunID)
	}
	return &e, nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// converter holds one conversion's state.
type converter struct {
	e     *RunEvent
	at    int64 // event time, epoch ms
	props []catalog.Proposal
	err   error
}

func (c *converter) add(entity, urn, aspect string, v any) {
	if c.err != nil {
		return
	}
	raw, err := json.Marshal(v)
	if err != nil {
		c.err = err
		return
	}
	c.props = append(c.props, catalog.Proposal{EntityType: entity, EntityURN: urn, ChangeType: catalog.Upsert,
		AspectName: aspect, Value: raw, ContentType: "application/json"})
}

// Convert returns the proposals that record e.
func Convert(e *RunEvent) ([]catalog.Proposal, error) {
	t, _ := time.Parse(time.RFC3339Nano, e.EventTime)
	c := &converter{e: e, at: t.UnixMilli()}
	flowName := strings.Split(e.Job.Name, ".")[0]
	flowOrchestrator, err := orchestrator("", e.Producer)
	if err != nil {
		return nil, err
	}
	flow := flowURN(flowOrchestrator, flowName, e.Job.Namespace)

	flowInfo := map[string]any{"name": flowName, "customProperties": c.customProperties(true)}
	description := c.description()
	if description != "" {
		flowInfo["description"] = description
	}
	c.add("dataFlow", flow, "dataFlowInfo", flowInfo)
	c.add("dataFlow", flow, "status", map[string]any{"removed": false})

	// The job's own flow names the processing engine when the run says
	// which one ran it, as DataHub's does.
	engine := c.engine()
	jobOrchestrator, err := orchestrator(engine, e.Producer)
	if err != nil {
		return nil, err
	}
	jobFlow := flowURN(jobOrchestrator, flowName, e.Job.Namespace)
	job := "urn:li:dataJob:(" + jobFlow + "," + e.Job.Name + ")"
	jobName := e.Job.Name
	if _, rest, ok := strings.Cut(jobName, "."); ok {
		jobName = rest
	}
	jobInfo := map[string]any{
		"name": jobName, "flowUrn": jobFlow, "type": map[string]any{"string": jobOrchestrator},
		"customProperties": c.customProperties(false), "created": map[string]any{"time": c.at},
	}
	if description != "" {
		jobInfo["description"] = description
	}
	c.add("dataJob", job, "dataJobInfo", jobInfo)
	c.add("dataJob", job, "status", map[string]any{"removed": false})
	if tags := c.airflowTags(); tags != nil {
		c.add("dataFlow", flow, "globalTags", map[string]any{"tags": tags})
	}

	inputs, err := c.datasets(e.Inputs)
	if err != nil {
		return nil, err
	}
	outputs, err := c.datasets(e.Outputs)
	if err != nil {
		return nil, err
	}
	edges := func(ds []dataset) []any {
		out := make([]any, 0, len(ds))
		for _, d := range ds {
			out = append(out, map[string]any{"destinationUrn": d.urn,
				"lastModified": map[string]any{"time": c.at, "actor": datahubActor}})
		}
		return out
	}
	var fineGrained []any
	for _, set := range [][]dataset{inputs, outputs} {
		for _, d := range set {
			c.materialize(d)
			fineGrained = append(fineGrained, d.fineGrained...)
		}
	}
	if fineGrained == nil {
		fineGrained = []any{}
	}
	io := map[string]any{
		"inputDatasets": []any{}, "inputDatasetEdges": edges(inputs),
		"outputDatasets": []any{}, "outputDatasetEdges": edges(outputs),
		"inputDatajobs": []any{}, "fineGrainedLineages": fineGrained,
	}
	if parent := c.parentJob(); parent != "" {
		io["inputDatajobEdges"] = []any{map[string]any{"destinationUrn": parent,
			"lastModified": map[string]any{"time": c.at, "actor": datahubActor}}}
	}
	c.add("dataJob", job, "dataJobInputOutput", io)

	run := "urn:li:dataProcessInstance:" + e.Run.RunID
	urns := func(ds []dataset) []any {
		out := make([]any, 0, len(ds))
		for _, d := range ds {
			out = append(out, d.urn)
		}
		return out
	}
	c.add("dataProcessInstance", run, "dataProcessInstanceInput", map[string]any{"inputs": urns(inputs)})
	c.add("dataProcessInstance", run, "dataProcessInstanceOutput", map[string]any{"outputs": urns(outputs)})
	c.add("dataProcessInstance", run, "dataProcessInstanceProperties", map[string]any{
		"name": e.Run.RunID, "created": map[string]any{"time": c.at, "actor": datahubActor}})
	c.add("dataProcessInstance", run, "dataProcessInstanceRunEvent", c.runEvent())
	c.add("dataProcessInstance", run, "dataProcessInstanceRelationships", map[string]any{"parentTemplate": job, "upstreamInstances": []any{}})
	return c.props, c.err
}

// parentJob is the data job of the run's parent (the parent run facet: an
// Airflow task that started a Spark application, say), "" without one: the
// job this conversion gives the parent's own events, its orchestrator told
// by the facet's producer. DataHub's converter makes the parent an
// upstream job the same way.
func (c *converter) parentJob() string {
	var p struct {
		Producer string `json:"_producer"`
		Job      struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"job"`
	}
	if !facet(c.e.Run.Facets, "parent", &p) || p.Job.Namespace == "" || p.Job.Name == "" {
		return ""
	}
	producer := p.Producer
	if producer == "" {
		producer = c.e.Producer
	}
	orch, err := orchestrator("", producer)
	if err != nil {
		return ""
	}
	return "urn:li:dataJob:(" + flowURN(orch, strings.Split(p.Job.Name, ".")[0], p.Job.Namespace) + "," + p.Job.Name + ")"
}

func flowURN(orchestrator, name, cluster string) string {
	return "urn:li:dataFlow:(" + orchestrator + "," + name + "," + cluster + ")"
}

var integrationProducer = regexp.MustCompile(`^https://github.com/OpenLineage/OpenLineage/.*/(.*)$`)

// orchestrator names the platform of a job: the processing engine when
// given, else the OpenLineage integration that produced the event (the
// last part of its producer URL), or Airflow's own provider.
func orchestrator(engine, producer string) (string, error) {
	switch {
	case engine != "":
		return strings.ToLower(engine), nil
	case integrationProducer.MatchString(producer):
		if m := integrationProducer.FindStringSubmatch(producer); m[1] != "" {
			return m[1], nil
		}
	case strings.HasPrefix(producer, "https://github.com/apache/airflow/"):
		return "airflow", nil
	}
	return "", catalog.Errorf(catalog.Invalid, "OpenLineage run event: cannot tell the orchestrator from producer %q "+
		"(an OpenLineage integration's https://github.com/OpenLineage/OpenLineage/.../<integration>, or Airflow's) "+
		"and the run has no processing_engine facet", producer)
}

// facet decodes a facet into v; a missing or malformed facet leaves v.
func facet(facets map[string]json.RawMessage, name string, v any) bool {
	raw, ok := facets[name]
	if !ok {
		return false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v) == nil
}

func (c *converter) engine() string {
	var pe struct {
		Name string `json:"name"`
	}
	facet(c.e.Run.Facets, "processing_engine", &pe)
	return pe.Name
}

func (c *converter) description() string {
	var doc struct {
		Description string `json:"description"`
	}
	facet(c.e.Job.Facets, "documentation", &doc)
	return doc.Description
}

// customProperties gathers what DataHub keeps of the run's facets as the
// custom properties of the flow (forFlow) or of the job.
func (c *converter) customProperties(forFlow bool) map[string]string {
	props := map[string]string{}
	var pe struct {
		Name                      string `json:"name"`
		Version                   string `json:"version"`
		OpenlineageAdapterVersion string `json:"openlineageAdapterVersion"`
	}
	if facet(c.e.Run.Facets, "processing_engine", &pe) {
		props["processingEngine"] = pe.Name
		if pe.Version != "" {
			props["processingEngineVersion"] = pe.Version
		}
		if pe.OpenlineageAdapterVersion != "" {
			props["openlineageAdapterVersion"] = pe.OpenlineageAdapterVersion
		}
	}
	var m map[string]any
	if facet(c.e.Run.Facets, "spark_jobDetails", &m) {
		for _, k := range []string{"jobId", "jobDescription", "jobGroup", "jobCallSite"} {
			if v, ok := m[k]; ok && v != nil {
				props[k] = scalar(v)
			}
		}
	}
	m = nil
	if facet(c.e.Run.Facets, "spark_version", &m) {
		for _, k := range []string{"spark-version", "openlineage-spark-version"} {
			if v, ok := m[k]; ok && v != nil {
				props[k] = scalar(v)
			}
		}
	}
	m = nil
	if facet(c.e.Run.Facets, "spark_properties", &m) {
		flatten(m["properties"], props)
	}
	m = nil
	if facet(c.e.Run.Facets, "airflow", &m) {
		if forFlow {
			flatten(m["dag"], props)
		} else {
			flatten(m["task"], props)
		}
	}
	m = nil
	if !forFlow && facet(c.e.Run.Facets, "unknownSourceAttribute", &m) {
		if items, ok := m["unknownItems"].([]any); ok {
			for _, it := range items {
				flatten(it, props)
			}
		}
	}
	return props
}

// flatten copies the leaves of nested objects into props, by their own key.
func flatten(v any, props map[string]string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, e := range m {
		switch x := e.(type) {
		case nil:
		case map[string]any:
			flatten(x, props)
		default:
			props[k] = scalar(x)
		}
	}
}

func scalar(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// airflowTags are the tags of the Airflow DAG that ran the job (a Python
// list in the airflow run facet), as tag associations sorted by name.
func (c *converter) airflowTags() []any {
	var af struct {
		Dag map[string]any `json:"dag"`
	}
	if !facet(c.e.Run.Facets, "airflow", &af) {
		return nil
	}
	s, ok := af.Dag["tags"].(string)
	if !ok {
		return nil
	}
	var tags []string
	if err := json.Unmarshal([]byte(strings.ReplaceAll(s, "'", `"`)), &tags); err != nil {
		return nil
	}
	sort.Slice(tags, func(i, j int) bool { return strings.ToLower(tags[i]) < strings.ToLower(tags[j]) })
	out := make([]any, 0, len(tags))
	for _, t := range tags {
		out = append(out, map[string]any{"tag": "urn:li:tag:" + t})
	}
	return out
}

func (c *converter) runEvent() map[string]any {
	ev := map[string]any{"timestampMillis": c.at}
	switch c.e.EventType {
	case "COMPLETE":
		ev["status"] = "COMPLETE"
		ev["result"] = map[string]any{"type": "SUCCESS", "nativeResultType": "COMPLETE"}
	case "FAIL", "ABORT":
		ev["status"] = "COMPLETE"
		ev["result"] = map[string]any{"type": "FAILURE", "nativeResultType": c.e.EventType}
	default:
		// START, RUNNING, and OTHER, whose result DataHub leaves unknown.
		ev["status"] = "STARTED"
	}
	return ev
}

// dataset is an input or output resolved to a DataHub dataset.
type dataset struct {
	urn, platform, name string
	schema              map[string]any // nil without a schema facet
	fineGrained         []any
}

// datasets resolves datasets to DataHub datasets, one per URN, in URN
// order.
func (c *converter) datasets(ds []Dataset) ([]dataset, error) {
	seen := map[string]bool{}
	var out []dataset
	for _, d := range ds {
		platform, name, err := datasetName(d)
		if err != nil {
			return nil, err
		}
		r := dataset{urn: datasetURN(platform, name), platform: platform, name: name}
		if seen[r.urn] {
			continue
		}
		seen[r.urn] = true
		r.schema = schema(d, platform)
		if r.fineGrained, err = fineGrained(d, r.urn); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].urn < out[j].urn })
	return out, nil
}

func datasetURN(platform, name string) string {
	return "urn:li:dataset:(urn:li:dataPlatform:" + platform + "," + name + ",PROD)"
}

// materialize writes a dataset's key, status and schema.
func (c *converter) materialize(d dataset) {
	c.add("dataset", d.urn, "datasetKey", map[string]any{"platform": "urn:li:dataPlatform:" + d.platform, "name": d.name, "origin": "PROD"})
	c.add("dataset", d.urn, "status", map[string]any{"removed": false})
	if d.schema != nil {
		c.add("dataset", d.urn, "schemaMetadata", d.schema)
	}
}

// platformAliases are the URI schemes whose DataHub platform has another
// name.
var platformAliases = map[string]string{"awsathena": "athena", "sqlserver": "mssql"}

// fileSystems are the URI schemes of file systems and the DataHub platform
// of each: their datasets are named by path.
var fileSystems = map[string]string{
	"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gcs", "gcs": "gcs", "abfs": "abfs", "abfss": "abfs",
	"dbfs": "dbfs", "file": "file",
}

// datasetName resolves an OpenLineage dataset (namespace, name) to a
// DataHub platform and dataset name, following a TABLE symlink (a Glue or
// Hive table behind a path) when there is one.
func datasetName(d Dataset) (platform, name string, err error) {
	namespace, name := d.Namespace, d.Name
	var symlinks struct {
		Identifiers []struct {
			Namespace, Name, Type string
		} `json:"identifiers"`
	}
	if facet(d.Facets, "symlinks", &symlinks) {
		for _, s := range symlinks.Identifiers {
			if s.Type != "TABLE" {
				continue
			}
			if strings.HasPrefix(s.Namespace, "aws:glue:") || strings.HasPrefix(s.Namespace, "arn:aws:glue:") {
				namespace = "glue"
			} else {
				namespace = "hive"
			}
			name = s.Name
			if rest, ok := strings.CutPrefix(name, "table/"); ok {
				name = strings.ReplaceAll(rest, "/", ".")
			}
		}
	}
	if namespace == "" || name == "" {
		return "", "", catalog.Errorf(catalog.Invalid, "OpenLineage dataset %q in namespace %q: namespace and name are required", d.Name, d.Namespace)
	}
	scheme, _, hasScheme := strings.Cut(namespace, "://")
	if !hasScheme {
		return namespace, name, nil
	}
	platform = scheme
	if alias, ok := platformAliases[scheme]; ok {
		platform = alias
	}
	fs, isFS := fileSystems[platform]
	if !isFS {
		return platform, name, nil
	}
	path := namespace + "/" + name
	if strings.HasSuffix(namespace, "/") || strings.HasPrefix(name, "/") {
		path = namespace + name
	}
	if _, err := url.Parse(path); err != nil {
		return "", "", catalog.Errorf(catalog.Invalid, "OpenLineage dataset %q in namespace %q: not a path: %v", d.Name, d.Namespace, err)
	}
	_, p, _ := strings.Cut(strings.TrimRight(path, "/"), "://")
	if fs != "file" {
		p = strings.TrimPrefix(p, "/")
	}
	return fs, p, nil
}

// fieldTypes maps OpenLineage field types to DataHub's field types.
var fieldTypes = map[string]string{
	"string": "StringType", "long": "NumberType", "int": "NumberType", "timestamp": "TimeType", "struct": "MapType",
}

// schema is the schemaMetadata of a dataset's schema facet, nil without one.
func schema(d Dataset, platform string) map[string]any {
	var s struct {
		Fields []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"fields"`
	}
	raw, ok := d.Facets["schema"]
	if !ok || !facet(d.Facets, "schema", &s) {
		return nil
	}
	fields := make([]any, 0, len(s.Fields))
	for _, f := range s.Fields {
		t, ok := fieldTypes[f.Type]
		if !ok {
			t = "NullType"
		}
		fields = append(fields, map[string]any{
			"fieldPath": f.Name, "nativeDataType": f.Type,
			"type": map[string]any{"type": map[string]any{"com.linkedin.schema." + t: map[string]any{}}},
		})
	}
	// DataHub keeps the facet's fields, as JSON, as the table's DDL.
	var facetFields struct {
		Fields json.RawMessage `json:"fields"`
	}
	_ = json.Unmarshal(raw, &facetFields)
	ddl, _ := fastjson.AppendCompact(nil, facetFields.Fields)
	return map[string]any{
		"schemaName": "", "version": 1, "hash": "", "platform": "urn:li:dataPlatform:" + platform,
		"platformSchema": map[string]any{"com.linkedin.schema.MySqlDDL": map[string]any{"tableSchema": string(ddl)}},
		"fields":         fields,
	}
}

func schemaField(dataset, field string) string {
	return "urn:li:schemaField:(" + dataset + "," + field + ")"
}

// fineGrained is the column-level lineage of a dataset's columnLineage
// facet: for each of its fields, the input fields it comes from.
func fineGrained(d Dataset, urn string) ([]any, error) {
	raw, ok := d.Facets["columnLineage"]
	if !ok {
		return nil, nil
	}
	var cl struct {
		Fields json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(raw, &cl); err != nil || len(cl.Fields) == 0 {
		return nil, nil
	}
	var out []any
	var ferr error
	// In the facet's order of fields, as DataHub keeps them.
	fastjson.Object(cl.Fields, func(field string, v []byte) bool {
		var f struct {
			InputFields []struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
				Field     string `json:"field"`
			} `json:"inputFields"`
		}
		if err := json.Unmarshal(v, &f); err != nil {
			ferr = catalog.Errorf(catalog.Invalid, "OpenLineage dataset %q: columnLineage of field %q: %v", d.Name, field, err)
			return false
		}
		upstreams := []string{}
		for _, in := range f.InputFields {
			platform, name, err := datasetName(Dataset{Namespace: in.Namespace, Name: in.Name})
			if err != nil {
				ferr = err
				return false
			}
			upstreams = append(upstreams, schemaField(datasetURN(platform, name), in.Field))
		}
		sort.Strings(upstreams)
		out = append(out, map[string]any{
			"upstreamType": "FIELD_SET", "upstreams": upstreams,
			"downstreamType": "FIELD_SET", "downstreams": []string{schemaField(urn, field)},
			"confidenceScore": 0.5,
		})
		return true
	})
	if ferr != nil {
		return nil, ferr
	}
	return out, nil
}
