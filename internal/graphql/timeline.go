package graphql

import (
	"context"
	"encoding/json"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
	"github.com/catalogd/catalogd/internal/timeline"
)

// timelineCategories maps the GraphQL change categories to the timeline's;
// GraphQL names the owner category OWNERSHIP.
var timelineCategories = map[model.ChangeCategoryType]timeline.Category{
	model.ChangeCategoryTypeDocumentation:   timeline.Documentation,
	model.ChangeCategoryTypeGlossaryTerm:    timeline.GlossaryTerm,
	model.ChangeCategoryTypeOwnership:       timeline.Owner,
	model.ChangeCategoryTypeTechnicalSchema: timeline.TechnicalSchema,
	model.ChangeCategoryTypeTag:             timeline.Tag,
}

// timelineOf reads the whole history of urn (the GraphQL fields take no
// window) in the given categories.
func (r *Resolver) timelineOf(ctx context.Context, urn string, cats []timeline.Category) ([]timeline.Transaction, error) {
	if r.timeline == nil {
		return nil, catalog.Errorf(catalog.Unavailable, "the timeline is not served")
	}
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil, err
	}
	return r.timeline.Timeline(ctx, timeline.Query{URN: u, Categories: cats, Start: 0, End: 0})
}

// GetTimeline answers the changes of an entity in the requested categories
// (all of them when none are given), oldest first.
func (r *queryResolver) GetTimeline(ctx context.Context, input model.GetTimelineInput) (*model.GetTimelineResult, error) {
	var cats []timeline.Category
	for _, c := range input.ChangeCategories {
		cats = append(cats, timelineCategories[c])
	}
	if len(cats) == 0 {
		for _, c := range model.AllChangeCategoryType {
			cats = append(cats, timelineCategories[c])
		}
	}
	txs, err := r.timelineOf(ctx, input.Urn, cats)
	if err != nil {
		return nil, err
	}
	out := &model.GetTimelineResult{ChangeTransactions: make([]*model.ChangeTransaction, len(txs))}
	for i := range txs {
		out.ChangeTransactions[i] = changeTransaction(&txs[i])
	}
	return out, nil
}

func changeTransaction(tx *timeline.Transaction) *model.ChangeTransaction {
	out := &model.ChangeTransaction{
		TimestampMillis:     tx.Timestamp,
		LastSemanticVersion: tx.SemVer,
		VersionStamp:        tx.VersionStamp,
		// A transaction as a whole modifies the entity.
		ChangeType: model.ChangeOperationTypeModify,
		Changes:    make([]*model.ChangeEvent, len(tx.Events)),
	}
	for i := range tx.Events {
		e := &tx.Events[i]
		ce := &model.ChangeEvent{
			Urn:        e.EntityURN,
			AuditStamp: auditStamp(tx.Timestamp, tx.Actor),
		}
		for g, c := range timelineCategories {
			if c == e.Category {
				ce.Category = ptr(g)
			}
		}
		// Operations the GraphQL enum cannot name (lifecycle ones) stay null.
		if op := model.ChangeOperationType(e.Operation); op.IsValid() {
			ce.Operation = &op
		}
		if e.Modifier != "" {
			ce.Modifier = ptr(e.Modifier)
		}
		if d := e.Description.String(); d != "" {
			ce.Description = ptr(d)
		}
		for _, p := range e.Params {
			ce.Parameters = append(ce.Parameters, &model.TimelineParameterEntry{Key: ptr(p.Key), Value: ptr(paramText(p.Value))})
		}
		out.Changes[i] = ce
	}
	return out
}

// paramText renders a parameter value as text, as GraphQL carries them.
func paramText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	j, _ := json.Marshal(v)
	return string(j)
}

// schemaTimeline reads the TECHNICAL_SCHEMA timeline of a dataset.
func (r *Resolver) schemaTimeline(ctx context.Context, datasetURN string) ([]timeline.Transaction, error) {
	return r.timelineOf(ctx, datasetURN, []timeline.Category{timeline.TechnicalSchema})
}

func semanticVersion(tx *timeline.Transaction) *model.SemanticVersionStruct {
	return &model.SemanticVersionStruct{
		SemanticVersion:          ptr(timeline.TrimSemVer(tx.SemVer)),
		SemanticVersionTimestamp: ptr(tx.Timestamp),
		VersionStamp:             ptr(tx.VersionStamp),
	}
}

// GetSchemaVersionList answers the semantic versions of a dataset's schema,
// newest first; null when the schema never changed.
func (r *queryResolver) GetSchemaVersionList(ctx context.Context, input model.GetSchemaVersionListInput) (*model.GetSchemaVersionListResult, error) {
	txs, err := r.schemaTimeline(ctx, input.DatasetUrn)
	if err != nil || len(txs) == 0 {
		return nil, err
	}
	out := &model.GetSchemaVersionListResult{LatestVersion: semanticVersion(&txs[len(txs)-1])}
	for _, tx := range timeline.SchemaVersions(txs) {
		out.SemanticVersionList = append(out.SemanticVersionList, semanticVersion(&tx))
	}
	return out, nil
}

// GetSchemaBlame answers, for the dataset's schema at a version (the latest
// when none is given), the change that last touched each field.
func (r *queryResolver) GetSchemaBlame(ctx context.Context, input model.GetSchemaBlameInput) (*model.GetSchemaBlameResult, error) {
	txs, err := r.schemaTimeline(ctx, input.DatasetUrn)
	if err != nil {
		return nil, err
	}
	var cutoff string
	if input.Version != nil {
		cutoff = *input.Version
	}
	selected, blame, err := timeline.SchemaBlame(txs, cutoff)
	if err != nil || selected == nil {
		return &model.GetSchemaBlameResult{}, err
	}
	out := &model.GetSchemaBlameResult{Version: semanticVersion(selected)}
	for _, b := range blame {
		out.SchemaFieldBlameList = append(out.SchemaFieldBlameList, &model.SchemaFieldBlame{
			FieldPath: b.FieldPath,
			SchemaFieldChange: &model.SchemaFieldChange{
				TimestampMillis:       b.Tx.Timestamp,
				LastSemanticVersion:   timeline.TrimSemVer(b.Tx.SemVer),
				VersionStamp:          b.Tx.VersionStamp,
				ChangeType:            model.ChangeOperationType(b.Operation),
				LastSchemaFieldChange: ptr(b.Summary()),
			},
		})
	}
	return out, nil
}
