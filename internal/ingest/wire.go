package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/registry"
)

// wireProposal is a MetadataChangeProposal as rest.li and DataHub's files carry it.
type wireProposal struct {
	AuditHeader     json.RawMessage   `json:"auditHeader"`
	EntityType      string            `json:"entityType"`
	EntityURN       string            `json:"entityUrn"`
	EntityKeyAspect *wireAspect       `json:"entityKeyAspect"`
	ChangeType      string            `json:"changeType"`
	AspectName      string            `json:"aspectName"`
	Aspect          *wireAspect       `json:"aspect"`
	SystemMetadata  map[string]any    `json:"systemMetadata"`
	Headers         map[string]string `json:"headers"`
}

// wireAspect is a GenericAspect: the aspect serialised into the string value
// (rest.li, Kafka) or inlined as json (DataHub's file sink).
type wireAspect struct {
	Value       *string         `json:"value"`
	ContentType string          `json:"contentType"`
	JSON        json.RawMessage `json:"json"`
}

func (w *wireAspect) raw() (json.RawMessage, string) {
	if w == nil {
		return nil, ""
	}
	if w.Value != nil {
		return json.RawMessage(*w.Value), w.ContentType
	}
	if len(w.JSON) > 0 && !bytes.Equal(bytes.TrimSpace(w.JSON), []byte("null")) {
		ct := w.ContentType
		if ct == "" {
			ct = "application/json"
		}
		return w.JSON, ct
	}
	return nil, w.ContentType
}

// DecodeProposal decodes one MetadataChangeProposal in either wire form.
// Unknown fields are rejected, as rest.li does, so a typo does not silently
// drop data.
func DecodeProposal(b []byte) (catalog.Proposal, error) {
	// One pass splits the members; encoding/json would match member names
	// case-insensitively, rest.li does not, so names are checked exactly.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return catalog.Proposal{}, catalog.Errorf(catalog.Invalid, "malformed proposal: %v", jsonErr(err))
	}
	var w wireProposal
	for k, raw := range members {
		var err error
		switch k {
		case "auditHeader":
		case "entityType":
			err = decodeMember(raw, &w.EntityType)
		case "entityUrn":
			err = decodeMember(raw, &w.EntityURN)
		case "entityKeyAspect":
			err = decodeMember(raw, &w.EntityKeyAspect)
		case "changeType":
			err = decodeMember(raw, &w.ChangeType)
		case "aspectName":
			err = decodeMember(raw, &w.AspectName)
		case "aspect":
			err = decodeMember(raw, &w.Aspect)
		case "systemMetadata":
			err = decodeMember(raw, &w.SystemMetadata)
		case "headers":
			err = decodeMember(raw, &w.Headers)
		default:
			return catalog.Proposal{}, catalog.Errorf(catalog.Invalid, "malformed proposal: unknown field %q", k)
		}
		if err != nil {
			return catalog.Proposal{}, catalog.Errorf(catalog.Invalid, "malformed proposal: field %s: %v", k, jsonErr(err))
		}
	}
	return w.proposal(), nil
}

// decodeMember decodes one proposal member strictly, numbers kept exact.
func decodeMember(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	d.UseNumber()
	return d.Decode(v)
}

func (w *wireProposal) proposal() catalog.Proposal {
	p := catalog.Proposal{
		EntityType:     w.EntityType,
		EntityURN:      w.EntityURN,
		ChangeType:     catalog.ChangeType(w.ChangeType),
		AspectName:     w.AspectName,
		SystemMetadata: w.SystemMetadata,
	}
	p.EntityKey, _ = w.EntityKeyAspect.raw()
	p.Value, p.ContentType = w.Aspect.raw()
	return p
}

// DecodeSnapshot turns a legacy snapshot union — {"<SnapshotFQN>": {"urn":
// ..., "aspects": [{"<AspectFQN>": {...}}]}} — into UPSERT proposals, one per
// aspect. Names may carry DataHub's pegasus2avro infix.
func DecodeSnapshot(reg *registry.Registry, raw json.RawMessage, sysMD map[string]any) ([]catalog.Proposal, error) {
	var union map[string]json.RawMessage
	if err := json.Unmarshal(raw, &union); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "malformed snapshot: %v", jsonErr(err))
	}
	if len(union) != 1 {
		return nil, catalog.Errorf(catalog.Invalid, "snapshot must have exactly one member keyed by the snapshot record name, got %d", len(union))
	}
	for name, body := range union {
		fqn := stripAvro(name)
		ent := reg.EntityBySnapshot(fqn)
		if ent == nil {
			return nil, catalog.Errorf(catalog.Invalid, "unknown snapshot type %q", name)
		}
		var snap struct {
			URN     string                       `json:"urn"`
			Aspects []map[string]json.RawMessage `json:"aspects"`
		}
		if err := json.Unmarshal(body, &snap); err != nil {
			return nil, catalog.Errorf(catalog.Invalid, "malformed %s: %v", fqn, jsonErr(err))
		}
		if snap.URN == "" {
			return nil, catalog.Errorf(catalog.Invalid, "%s: urn is required", fqn)
		}
		out := make([]catalog.Proposal, 0, len(snap.Aspects))
		for i, a := range snap.Aspects {
			if len(a) != 1 {
				return nil, catalog.Errorf(catalog.Invalid, "%s %s: aspect %d must have exactly one member keyed by the aspect record name", fqn, snap.URN, i)
			}
			for an, av := range a {
				spec := reg.AspectByWireName(stripAvro(an))
				if spec == nil {
					return nil, catalog.Errorf(catalog.Invalid, "%s %s: unknown aspect record %q", fqn, snap.URN, an)
				}
				out = append(out, catalog.Proposal{
					EntityType:     ent.Name,
					EntityURN:      snap.URN,
					ChangeType:     catalog.Upsert,
					AspectName:     spec.Name,
					Value:          av,
					ContentType:    "application/json",
					SystemMetadata: sysMD,
				})
			}
		}
		return out, nil
	}
	return nil, nil
}

func stripAvro(name string) string { return strings.Replace(name, "pegasus2avro.", "", 1) }

// DecodeRecord decodes one record of a DataHub metadata file in any of its
// three forms: an MCP with aspect.value, an MCP with aspect.json, or a legacy
// MCE with proposedSnapshot.
func DecodeRecord(reg *registry.Registry, b []byte) ([]catalog.Proposal, error) {
	var probe struct {
		ProposedSnapshot json.RawMessage `json:"proposedSnapshot"`
		SystemMetadata   map[string]any  `json:"systemMetadata"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "malformed record: %v", jsonErr(err))
	}
	if len(probe.ProposedSnapshot) > 0 {
		return DecodeSnapshot(reg, probe.ProposedSnapshot, probe.SystemMetadata)
	}
	var w wireProposal
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		return nil, catalog.Errorf(catalog.Invalid, "malformed proposal: %v", jsonErr(err))
	}
	return []catalog.Proposal{w.proposal()}, nil
}

// jsonErr turns encoding/json errors into messages that name the field.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if ok := errors.As(err, &te); ok && te.Field != "" {
		return fmt.Sprintf("field %s: expected %s, got %s", te.Field, te.Type, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
