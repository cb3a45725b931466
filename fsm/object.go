package fsm

import (
	"bytes"
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
	if !validJSON(obj) {
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

// EqualButResourceVersion reports whether a and b, two JSON objects as the
// store holds them, are the same bytes once metadata.resourceVersion is
// taken out of each: wherever it sits in metadata, and whether or not it
// is there. It is the byte comparison kube-apiserver's etcd3 store makes
// to find an update that changes nothing, without decoding either object.
// Objects that differ in anything else, whitespace and key order
// included, are not equal. a and b must be valid JSON (the store's own
// and an encoder's output are): the scan does not validate them.
func EqualButResourceVersion(a, b []byte) bool {
	fromA, toA := resourceVersionMember(a)
	fromB, toB := resourceVersionMember(b)
	return equalJoined(a[:fromA], a[toA:], b[:fromB], b[toB:])
}

// resourceVersionMember returns the span of obj to remove with its
// metadata.resourceVersion member, the comma that separates it from
// another member included; an empty span when obj has none.
func resourceVersionMember(obj []byte) (from, to int) {
	top, err := scanObject(obj, skipSpace(obj, 0))
	if err != nil {
		return 0, 0
	}
	m, ok := top.last("metadata")
	if !ok {
		return 0, 0
	}
	meta, err := scanObject(obj, m.value)
	if err != nil {
		return 0, 0
	}
	for i := len(meta.members) - 1; i >= 0; i-- {
		r := meta.members[i]
		if !keyEquals(obj[r.key:r.keyEnd], "resourceVersion") {
			continue
		}
		switch {
		case i+1 < len(meta.members):
			return r.key, meta.members[i+1].key
		case i > 0:
			return meta.members[i-1].end, r.end
		default:
			return r.key, r.end
		}
	}
	return 0, 0
}

// equalJoined reports whether a1+a2 and b1+b2 are the same bytes, without
// joining them.
func equalJoined(a1, a2, b1, b2 []byte) bool {
	if len(a1)+len(a2) != len(b1)+len(b2) {
		return false
	}
	if len(a1) > len(b1) {
		a1, a2, b1, b2 = b1, b2, a1, a2
	}
	n := len(b1) - len(a1)
	return bytes.Equal(a1, b1[:len(a1)]) && bytes.Equal(a2[:n], b1[len(a1):]) && bytes.Equal(a2[n:], b2)
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
