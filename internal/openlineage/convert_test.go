package openlineage

import (
	"encoding/json"
	"testing"
)

func TestDatasetName(t *testing.T) {
	tests := []struct {
		namespace, name, facets string
		platform, want          string
	}{
		{"postgres://db:5432", "shop.public.orders", "", "postgres", "shop.public.orders"},
		{"bigquery", "project.dataset.table", "", "bigquery", "project.dataset.table"},
		{"sqlserver://host:1433", "db.dbo.t", "", "mssql", "db.dbo.t"},
		{"awsathena://athena.us-east-1.amazonaws.com", "catalog.db.t", "", "athena", "catalog.db.t"},
		{"s3a://bucket", "path/to/data", "", "s3", "bucket/path/to/data"},
		{"s3://bucket/", "path/to/data/", "", "s3", "bucket/path/to/data"},
		{"gs://bucket", "data", "", "gcs", "bucket/data"},
		{"file", "/tmp/x", "", "file", "/tmp/x"},
		{"file://", "/tmp/x.csv", "", "file", "/tmp/x.csv"},
		{"s3://bucket", "warehouse/orders", `{"symlinks":{"identifiers":[{"namespace":"arn:aws:glue:us-east-1:123","name":"table/sales/orders","type":"TABLE"}]}}`, "glue", "sales.orders"},
		{"hdfs://nn:8020", "warehouse/orders", `{"symlinks":{"identifiers":[{"namespace":"hive://metastore:9083","name":"sales.orders","type":"TABLE"}]}}`, "hive", "sales.orders"},
	}
	for _, tc := range tests {
		d := Dataset{Namespace: tc.namespace, Name: tc.name}
		if tc.facets != "" {
			if err := json.Unmarshal([]byte(tc.facets), &d.Facets); err != nil {
				t.Fatal(err)
			}
		}
		platform, name, err := datasetName(d)
		if err != nil || platform != tc.platform || name != tc.want {
			t.Errorf("%s %s: %s %s %v, want %s %s", tc.namespace, tc.name, platform, name, err, tc.platform, tc.want)
		}
	}
}

func TestOrchestrator(t *testing.T) {
	tests := []struct{ engine, producer, want string }{
		{"", "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/airflow", "airflow"},
		{"", "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/spark", "spark"},
		{"", "https://github.com/apache/airflow/tree/providers-openlineage/1.7.0", "airflow"},
		{"Spark", "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/integration/spark", "spark"},
		{"", "https://example.com/tool", ""},
		{"", "https://github.com/OpenLineage/OpenLineage/tree/1.9.0/", ""},
	}
	for _, tc := range tests {
		got, err := orchestrator(tc.engine, tc.producer)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("orchestrator(%q, %q) = %q, %v; want %q", tc.engine, tc.producer, got, err, tc.want)
		}
	}
}
