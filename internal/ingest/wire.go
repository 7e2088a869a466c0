package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/fastjson"
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
	var v []byte
	if w.Value != nil {
		v = []byte(*w.Value)
	}
	return aspectValue(v, w.Value != nil, w.JSON, w.ContentType)
}

// aspectValue picks a GenericAspect's value: the string value when present,
// else the inlined json (whose content type is then JSON by default).
func aspectValue(value []byte, hasValue bool, inline json.RawMessage, contentType string) (json.RawMessage, string) {
	if hasValue {
		return value, contentType
	}
	if len(inline) > 0 && !bytes.Equal(bytes.TrimSpace(inline), []byte("null")) {
		if contentType == "" {
			contentType = "application/json"
		}
		return inline, contentType
	}
	return nil, contentType
}

// DecodeProposal decodes one MetadataChangeProposal in either wire form.
// Unknown fields are rejected, as rest.li does, so a typo does not silently
// drop data.
func DecodeProposal(b []byte) (catalog.Proposal, error) {
	if p, ok := decodeProposalFast(b); ok {
		return p, nil
	}
	return decodeProposalSlow(b)
}

// decodeProposalSlow is DecodeProposal with encoding/json, for every input.
func decodeProposalSlow(b []byte) (catalog.Proposal, error) {
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

// decodeProposalFast decodes a well-formed proposal in the forms clients
// send, giving what the encoding/json path below gives. Anything else
// (malformed JSON, wrong member types, member names in another case, null
// where a value is expected) is left to that path, which also words the
// errors.
func decodeProposalFast(b []byte) (catalog.Proposal, bool) {
	var p catalog.Proposal
	var aspect, key *fastAspect
	str := func(v fastjson.Cursor, dst *string) bool {
		if v.Null() {
			*dst = "" // as encoding/json leaves a string it decodes null into
			return true
		}
		s, ok := v.String()
		*dst = s
		return ok
	}
	// Members hands over each value in place: the aspect's value, a long
	// escaped string, is then read once to unescape it rather than also
	// once per enclosing object to find where that object ends.
	ok := fastjson.Members(b, func(k string, v fastjson.Cursor) bool {
		switch k {
		case "auditHeader":
			return true
		case "entityType":
			return str(v, &p.EntityType)
		case "entityUrn":
			return str(v, &p.EntityURN)
		case "changeType":
			var ct string
			ok := str(v, &ct)
			p.ChangeType = catalog.ChangeType(ct)
			return ok
		case "aspectName":
			return str(v, &p.AspectName)
		case "entityKeyAspect":
			var ok bool
			key, ok = decodeAspectFast(v)
			return ok
		case "aspect":
			var ok bool
			aspect, ok = decodeAspectFast(v)
			return ok
		case "systemMetadata":
			raw, ok := v.Raw()
			if !ok {
				return false
			}
			d, ok := fastjson.Decode(raw)
			if !ok {
				return false
			}
			m, isMap := d.(map[string]any)
			p.SystemMetadata = m
			return isMap || d == nil
		case "headers":
			if v.Null() {
				return true
			}
			return v.Object(func(name string, h fastjson.Cursor) bool {
				s, ok := h.String()
				if ok {
					if p.Headers == nil {
						p.Headers = map[string]string{}
					}
					p.Headers[name] = s
				}
				return ok
			})
		}
		return false
	})
	if !ok {
		return catalog.Proposal{}, false
	}
	p.EntityKey, _ = key.raw()
	p.Value, p.ContentType = aspect.raw()
	return p, true
}

// fastAspect is a wireAspect decoded by decodeAspectFast.
type fastAspect struct {
	value       []byte
	hasValue    bool
	contentType string
	json        []byte
}

// decodeAspectFast decodes a GenericAspect whose members are named exactly
// (encoding/json would also match other cases).
func decodeAspectFast(v fastjson.Cursor) (*fastAspect, bool) {
	if v.Null() {
		return nil, true
	}
	a := &fastAspect{}
	ok := v.Object(func(k string, m fastjson.Cursor) bool {
		switch k {
		case "value":
			if m.Null() {
				a.value, a.hasValue = nil, false
				return true
			}
			b, ok := m.StringBytes()
			a.value, a.hasValue = b, ok
			return ok
		case "contentType":
			if m.Null() {
				return true // leaves what an earlier member set, as encoding/json does
			}
			s, ok := m.String()
			a.contentType = s
			return ok
		case "json":
			raw, ok := m.Raw()
			a.json = append([]byte(nil), raw...)
			return ok
		}
		return false
	})
	return a, ok
}

// raw is wireAspect.raw.
func (a *fastAspect) raw() (json.RawMessage, string) {
	if a == nil {
		return nil, ""
	}
	return aspectValue(a.value, a.hasValue, a.json, a.contentType)
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
		Headers:        w.Headers,
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
