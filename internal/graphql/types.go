package graphql

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

// entityNames maps GraphQL entity types to the registry's entity type names,
// the inverse of model.EntityTypes.
var entityNames = func() map[model.EntityType]string {
	m := make(map[model.EntityType]string, len(model.EntityTypes))
	for n, t := range model.EntityTypes {
		m[t] = n
	}
	return m
}()

// urnType returns the entity type named in urn ("" when malformed).
func urnType(urn string) string { return model.EntityName(urn) }

// urnParts returns the key parts of urn (nil when malformed).
func urnParts(urn string) []string {
	u, err := catalog.ParseURN(urn)
	if err != nil {
		return nil
	}
	return u.Parts()
}

// urnPart returns the i-th key part of urn, "" when there is none.
func urnPart(urn string, i int) string {
	p := urnParts(urn)
	if i < len(p) {
		return p[i]
	}
	return ""
}

// entitiesOf returns the GraphQL objects of urns, leaving out those without
// a GraphQL type.
func entitiesOf(urns []string) []model.Entity {
	out := make([]model.Entity, 0, len(urns))
	for _, u := range urns {
		if e := model.EntityOf(u); e != nil {
			out = append(out, e)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// nonEmpty returns a pointer to s, nil when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// page applies DataHub's paging defaults.
func page(start, count *int, def int) (int, int) {
	s, c := deref(start), def
	if count != nil {
		c = *count
	}
	if s < 0 {
		s = 0
	}
	if c < 0 {
		c = 0
	}
	return s, c
}

// window returns the [start, start+count) slice of s.
func window[E any](s []E, start, count int) []E {
	if start >= len(s) {
		return nil
	}
	end := min(start+count, len(s))
	return s[start:end]
}

func splitPath(p string) []string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) == 1 && parts[0] == "" {
		return []string{}
	}
	return parts
}

// auditStamp returns the GraphQL AuditStamp of a time and actor.
func auditStamp(time int64, actor string) *model.AuditStamp {
	v := map[string]any{"time": json.Number(strconv.FormatInt(time, 10))}
	if actor != "" {
		v["actor"] = actor
	}
	return model.NewAuditStamp(v, model.NewScope("", nil, 0))
}

// jsonUnmarshalNumber decodes JSON keeping numbers as json.Number.
func jsonUnmarshalNumber(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}
