package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/catalogd/catalogd/internal/catalog"
)

// computedSuffix marks the semantic versions the timeline computes; the
// schema history shows them without it.
const computedSuffix = "-computed"

// TrimSemVer returns a transaction's semantic version without its
// "-computed" suffix: "1.2.0-computed" is shown as "1.2.0".
func TrimSemVer(s string) string { return strings.TrimSuffix(s, computedSuffix) }

// Version is a semantic version major.minor.patch.
type Version [3]int

// ParseVersion reads a version "x.y.z"; missing trailing numbers are 0
// ("2" is 2.0.0) and a "-computed" suffix is ignored.
func ParseVersion(s string) (Version, error) {
	var v Version
	t := TrimSemVer(strings.TrimSpace(s))
	parts := strings.Split(t, ".")
	if t == "" || len(parts) > 3 {
		return Version{}, catalog.Errorf(catalog.Invalid, "version %q is not a semantic version x.y.z", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, catalog.Errorf(catalog.Invalid, "version %q is not a semantic version x.y.z", s)
		}
		v[i] = n
	}
	return v, nil
}

// String renders the version as "x.y.z".
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// Compare orders versions: negative when v is older than w.
func (v Version) Compare(w Version) int {
	for i := range v {
		if c := cmp.Compare(v[i], w[i]); c != 0 {
			return c
		}
	}
	return 0
}

// versioned pairs the transactions with their versions, newest version
// first; transactions of one version keep their order (oldest first), and
// those whose version cannot be read are left out.
func versioned(txs []Transaction) []versionedTx {
	out := make([]versionedTx, 0, len(txs))
	for i := range txs {
		v, err := ParseVersion(txs[i].SemVer)
		if err != nil {
			continue
		}
		out = append(out, versionedTx{v, &txs[i]})
	}
	slices.SortStableFunc(out, func(a, b versionedTx) int { return b.v.Compare(a.v) })
	return out
}

type versionedTx struct {
	v  Version
	tx *Transaction
}

// SchemaVersions returns the transactions of a TECHNICAL_SCHEMA timeline
// (oldest first, as Timeline gives them) from the newest semantic version
// to the oldest: the schema's version history.
func SchemaVersions(txs []Transaction) []Transaction {
	vs := versioned(txs)
	out := make([]Transaction, len(vs))
	for i, v := range vs {
		out[i] = *v.tx
	}
	return out
}

// FieldBlame is the last change of one schema field as of a version.
type FieldBlame struct {
	FieldPath string
	Operation Operation
	// Tx is the transaction that made the change.
	Tx *Transaction
}

// Summary says what the change was and in which version, e.g.
// "Added in v1.0.0".
func (b FieldBlame) Summary() string {
	what := "Unknown change made"
	switch b.Operation {
	case Add:
		what = "Added"
	case Modify:
		what = "Modified"
	case Remove:
		what = "Removed"
	}
	return what + " in v" + TrimSemVer(b.Tx.SemVer)
}

// SchemaBlame computes, from a TECHNICAL_SCHEMA timeline (oldest first),
// the last change of every field the schema has at version cutoff ("" for
// the latest version): the transaction of the newest version not after
// cutoff, and for each field still present the transaction that last
// changed it, ordered by field path. selected is nil when no version is at
// or before cutoff.
func SchemaBlame(txs []Transaction, cutoff string) (selected *Transaction, blame []FieldBlame, err error) {
	if len(txs) == 0 {
		return nil, nil, nil
	}
	if cutoff == "" {
		cutoff = txs[len(txs)-1].SemVer
	}
	limit, err := ParseVersion(cutoff)
	if err != nil {
		return nil, nil, err
	}
	var vs []versionedTx
	for _, v := range versioned(txs) {
		if v.v.Compare(limit) <= 0 {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	for _, v := range vs {
		for _, e := range v.tx.Events {
			if e.Category != TechnicalSchema || e.Modifier == "" || seen[e.Modifier] {
				continue
			}
			path, ok := schemaFieldPath(e.Modifier)
			if !ok {
				continue
			}
			seen[e.Modifier] = true
			if e.Operation != Remove {
				blame = append(blame, FieldBlame{FieldPath: path, Operation: e.Operation, Tx: v.tx})
			}
		}
	}
	slices.SortFunc(blame, func(a, b FieldBlame) int { return strings.Compare(a.FieldPath, b.FieldPath) })
	return vs[0].tx, blame, nil
}

// schemaFieldPath returns the field path of a schema field URN
// urn:li:schemaField:(<parent urn>,<field path>).
func schemaFieldPath(s string) (string, bool) {
	u, err := catalog.ParseURN(s)
	if err != nil || u.EntityType() != "schemaField" {
		return "", false
	}
	parts := u.Parts()
	if len(parts) != 2 {
		return "", false
	}
	return parts[1], true
}
