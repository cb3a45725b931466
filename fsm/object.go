package fsm

import (
	"encoding/json"
	"errors"
	"strconv"
)

// StampResourceVersion returns obj with metadata.resourceVersion set to rev.
// obj must be a JSON object whose "metadata" (if present) is an object or
// null. Only the resourceVersion's value changes, or is inserted first in
// metadata (metadata first in the object when obj has none): every other
// byte is kept. Stamping therefore costs one validation and one scan of
// obj's top level and metadata, not a decode and an encode of the whole
// object; it runs on the apply path, once per write on every node. The
// result depends only on obj and rev, so replicas store identical bytes.
//
// A member that appears more than once counts by its last occurrence, as
// encoding/json decodes it; keys are compared after unescaping.
func StampResourceVersion(obj []byte, rev uint64) ([]byte, error) {
	if !json.Valid(obj) {
		return nil, errors.New("invalid JSON")
	}
	top, err := scanObject(obj, skipSpace(obj, 0))
	if err != nil {
		return nil, err
	}
	rv := strconv.AppendQuote(nil, strconv.FormatUint(rev, 10))
	m, ok := top.last("metadata")
	if !ok {
		return splice(obj, top.open+1, top.open+1, `"metadata":{"resourceVersion":`, rv, "}", top.comma()), nil
	}
	if string(obj[m.value:m.end]) == "null" {
		return splice(obj, m.value, m.end, `{"resourceVersion":`, rv, "}", ""), nil
	}
	meta, err := scanObject(obj, m.value)
	if err != nil {
		return nil, errors.New("metadata is not a JSON object")
	}
	if r, ok := meta.last("resourceVersion"); ok {
		return splice(obj, r.value, r.end, "", rv, "", ""), nil
	}
	return splice(obj, meta.open+1, meta.open+1, `"resourceVersion":`, rv, "", meta.comma()), nil
}

// splice returns obj with obj[from:to] replaced by the concatenation of
// the other arguments, in one allocation.
func splice(obj []byte, from, to int, before string, value []byte, after, sep string) []byte {
	out := make([]byte, 0, len(obj)-(to-from)+len(before)+len(value)+len(after)+len(sep))
	out = append(out, obj[:from]...)
	out = append(out, before...)
	out = append(out, value...)
	out = append(out, after...)
	out = append(out, sep...)
	return append(out, obj[to:]...)
}

// objectUID returns metadata.uid of a stored object ("" when absent).
func objectUID(obj []byte) string {
	var o struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &o) != nil {
		return ""
	}
	return o.Metadata.UID
}
