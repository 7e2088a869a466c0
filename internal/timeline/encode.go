package timeline

import (
	"encoding/json"
	"strconv"

	"github.com/catalogd/catalogd/internal/fastjson"
)

// AppendParams appends parameters as a JSON object, in their order.
func AppendParams(b []byte, ps []Param) []byte {
	b = append(b, '{')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = fastjson.AppendString(b, p.Key)
		b = append(b, ':')
		switch v := p.Value.(type) {
		case bool:
			b = strconv.AppendBool(b, v)
		case string:
			b = fastjson.AppendString(b, v)
		default:
			j, _ := json.Marshal(v)
			b = append(b, j...)
		}
	}
	return append(b, '}')
}

// AppendTransactions appends transactions as DataHub's timeline answers
// them: a JSON array of ChangeTransaction records, members without a value
// left out, rawDiff only when raw.
func AppendTransactions(b []byte, txs []Transaction, raw bool) []byte {
	b = append(b, '[')
	for i := range txs {
		if i > 0 {
			b = append(b, ',')
		}
		t := &txs[i]
		b = append(b, `{"timestamp":`...)
		b = strconv.AppendInt(b, t.Timestamp, 10)
		if t.Actor != "" {
			b = append(b, `,"actor":`...)
			b = fastjson.AppendString(b, t.Actor)
		}
		b = append(b, `,"semVer":`...)
		b = fastjson.AppendString(b, t.SemVer)
		b = append(b, `,"semVerChange":`...)
		b = fastjson.AppendString(b, t.SemVerChange.String())
		b = append(b, `,"changeEvents":[`...)
		for k := range t.Events {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendChangeEvent(b, &t.Events[k])
		}
		b = append(b, ']')
		if raw {
			j, _ := json.Marshal(t.RawDiff)
			b = append(append(b, `,"rawDiff":`...), j...)
		}
		b = append(b, `,"versionStamp":`...)
		b = fastjson.AppendString(b, t.VersionStamp)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendChangeEvent appends one ChangeEvent as the timeline shows it.
func appendChangeEvent(b []byte, e *ChangeEvent) []byte {
	b = append(b, '{')
	sep := false
	member := func(name, v string) {
		if v == "" {
			return
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = fastjson.AppendString(b, name)
		b = append(b, ':')
		b = fastjson.AppendString(b, v)
	}
	member("entityUrn", e.EntityURN)
	member("category", string(e.Category))
	member("operation", string(e.Operation))
	member("modifier", e.Modifier)
	if len(e.Params) > 0 {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = AppendParams(append(b, `"parameters":`...), e.Params)
	}
	member("semVerChange", e.SemVer.String())
	member("description", e.Description.String())
	return append(b, '}')
}
