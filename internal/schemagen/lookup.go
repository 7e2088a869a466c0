package schemagen

// Deref follows $refs (typeref chains included) from s to the schema they
// name, for tools that walk the model (the GraphQL generator).
func (m *Model) Deref(s *Schema) (*Schema, error) {
	d, _, err := m.deref(s)
	return d, err
}

// MapValue returns the value schema of a Pegasus map, nil when s is not one.
func (s *Schema) MapValue() *Schema {
	if s.isMap() {
		return s.addl
	}
	return nil
}
