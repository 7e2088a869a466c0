package timeline

import (
	"slices"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    Version
		wantErr bool
	}{
		{in: "1.2.3", want: Version{1, 2, 3}},
		{in: "1.2.3-computed", want: Version{1, 2, 3}},
		{in: "2", want: Version{2, 0, 0}},
		{in: " 0.10 ", want: Version{0, 10, 0}},
		{in: "", wantErr: true},
		{in: "latest", wantErr: true},
		{in: "1.2.3.4", wantErr: true},
		{in: "1.-2.0", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseVersion(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	if v := (Version{0, 10, 0}); v.Compare(Version{0, 9, 7}) <= 0 || v.String() != "0.10.0" {
		t.Errorf("0.10.0 must sort after 0.9.7 numerically and print as itself, got %s", v)
	}
}

// TestSchemaVersions checks that versions are ordered numerically, newest
// first, transactions of one version keeping their order.
func TestSchemaVersions(t *testing.T) {
	txs := []Transaction{
		{Timestamp: 1, SemVer: "0.0.0-computed"},
		{Timestamp: 2, SemVer: "0.9.0-computed"},
		{Timestamp: 3, SemVer: "0.10.0-computed"},
		{Timestamp: 4, SemVer: "0.10.0-computed"},
		{Timestamp: 5, SemVer: "garbled"},
	}
	var got []int64
	for _, tx := range SchemaVersions(txs) {
		got = append(got, tx.Timestamp)
	}
	if want := []int64{3, 4, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("SchemaVersions order by timestamp = %v, want %v", got, want)
	}
	if sel, blame, err := SchemaBlame(nil, ""); sel != nil || blame != nil || err != nil {
		t.Errorf("SchemaBlame of no history = %v, %v, %v; want nothing", sel, blame, err)
	}
}
