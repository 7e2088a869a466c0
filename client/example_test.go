package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/catalogd/catalogd/client"
)

// Upsert creates an entity from its system aspects plus incremental changes.
func ExampleClient_Upsert() {
	url, stop := startServer()
	defer stop()
	c, _ := client.New(url)
	ctx := context.Background()

	ds := client.NewDataset("hive", "sales.orders", "PROD").
		SetAspect("datasetProperties", map[string]any{"name": "orders"}).
		AddTag("pii").
		AddOwner("alice", client.DataOwner)
	if err := c.Upsert(ctx, ds); err != nil {
		fmt.Println(err)
		return
	}
	got, _ := c.Get(ctx, ds.URN())
	tags, _ := got.Aspect("globalTags")
	fmt.Println(string(tags))
	// Output: {"tags":[{"tag":"urn:li:tag:pii"}]}
}

// Update sends only patches, and refuses to create an entity.
func ExampleClient_Update() {
	url, stop := startServer()
	defer stop()
	c, _ := client.New(url)
	ctx := context.Background()

	err := c.Update(ctx, client.NewDataset("hive", "no.such.table", "PROD").AddTag("pii"))
	fmt.Println(errors.Is(err, client.ErrNotFound))

	_ = c.Upsert(ctx, client.NewGlossaryTerm("revenue", "Revenue", "Money coming in"))
	_ = c.Upsert(ctx, client.NewDashboard("looker", "42", "Sales"))
	err = c.Update(ctx, client.NewEntity("urn:li:dashboard:(looker,42)").AddTerm("revenue").SetDomain("sales"))
	fmt.Println(err)
	got, _ := c.Get(ctx, "urn:li:dashboard:(looker,42)")
	domains, _ := got.Aspect("domains")
	fmt.Println(string(domains))
	// Output:
	// true
	// <nil>
	// {"domains":["urn:li:domain:sales"]}
}

// A fetched entity is read-only; Mutable gives a copy to change and send.
func ExampleReadOnlyEntity_Mutable() {
	url, stop := startServer()
	defer stop()
	c, _ := client.New(url)
	ctx := context.Background()
	_ = c.Upsert(ctx, client.NewUser("alice", "Alice", "alice@example.com"))

	fetched, _ := c.Get(ctx, "urn:li:corpuser:alice")
	fmt.Println(fetched.AspectNames())

	user := fetched.Mutable()
	user.AddTag("admin")
	fmt.Println(c.Update(ctx, user))
	// Output:
	// [corpUserInfo corpUserKey]
	// <nil>
}

// Column tags and descriptions people add live in editableSchemaMetadata, so
// re-ingesting the schema keeps them.
func ExampleEntity_AddColumnTag() {
	url, stop := startServer()
	defer stop()
	c, _ := client.New(url)
	ctx := context.Background()
	schema := map[string]any{
		"schemaName": "orders", "platform": "urn:li:dataPlatform:hive", "version": 0, "hash": "",
		"platformSchema": map[string]any{"com.linkedin.schema.OtherSchema": map[string]any{"rawSchema": ""}},
		"fields": []any{map[string]any{"fieldPath": "email", "nativeDataType": "string",
			"type": map[string]any{"type": map[string]any{"com.linkedin.schema.StringType": map[string]any{}}}}},
	}
	ingest := func() error {
		return c.Upsert(ctx, client.NewDataset("hive", "orders", "PROD").SetAspect("schemaMetadata", schema))
	}
	_ = ingest()
	_ = c.Update(ctx, client.NewDataset("hive", "orders", "PROD").AddColumnTag("email", "pii"))
	_ = ingest() // the next ingestion run

	got, _ := c.Get(ctx, "urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)")
	edits, _ := got.Aspect("editableSchemaMetadata")
	var columns struct {
		EditableSchemaFieldInfo json.RawMessage `json:"editableSchemaFieldInfo"`
	}
	_ = json.Unmarshal(edits, &columns)
	fmt.Println(string(columns.EditableSchemaFieldInfo))
	// Output: [{"fieldPath":"email","globalTags":{"tags":[{"tag":"urn:li:tag:pii"}]}}]
}

// An Emitter batches proposals into ingestProposalBatch requests.
func ExampleEmitter() {
	url, stop := startServer()
	defer stop()
	c, _ := client.New(url)
	ctx := context.Background()

	em := c.NewEmitter(100)
	for i := range 250 {
		_ = em.EmitEntity(ctx, client.NewTag(fmt.Sprintf("tag%03d", i), ""))
	}
	if err := em.Flush(ctx); err != nil {
		fmt.Println(err)
	}
	ok, _ := c.Exists(ctx, "urn:li:tag:tag249")
	fmt.Println(ok)
	// Output: true
}

// Groups and charts are built the same way.
func ExampleNewGroup() {
	url, stop := startServer()
	defer stop()
	c, _ := client.New(url)
	ctx := context.Background()

	g := client.NewGroup("data-eng", "Data Engineering")
	chart := client.NewChart("looker", "7", "Weekly orders").AddOwner(g.URN(), client.TechnicalOwner)
	fmt.Println(c.Upsert(ctx, g), c.Upsert(ctx, chart))
	got, _ := c.Get(ctx, chart.URN())
	ownership, _ := got.Aspect("ownership")
	var owners struct {
		Owners json.RawMessage `json:"owners"`
	}
	_ = json.Unmarshal(ownership, &owners)
	fmt.Println(string(owners.Owners))
	// Output:
	// <nil> <nil>
	// [{"owner":"urn:li:corpGroup:data-eng","type":"TECHNICAL_OWNER"}]
}
