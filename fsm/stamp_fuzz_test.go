package fsm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"

	"github.com/raftapi/raftapi/fsm"
)

// FuzzStampResourceVersion checks StampResourceVersion against decoding:
// it accepts exactly the JSON objects whose metadata is absent, null or an
// object, and what it returns decodes to the input with
// metadata.resourceVersion set, however the input is spaced, escaped or
// duplicated.
func FuzzStampResourceVersion(f *testing.F) {
	for _, s := range []string{`{}`, `{"metadata":null}`, `{"metadata":{"name":"n","resourceVersion":"3"},"x":[1,{"a":"}"}]}`,
		` { "metad\u0061ta" : { } } `, `{"metadata":{},"metadata":{"resourceVersion":1}}`, `{"metadata":1}`, `[]`, `{"a":"\\"}`,
		`{"a\\\"b":"x\\\\\"y\\\\","metadata":{"n\\\\":"\\\"","resourceVersion":"1"}}`} {
		f.Add([]byte(s), uint64(7))
	}
	f.Fuzz(func(t *testing.T, obj []byte, rev uint64) {
		want, ok := stampByDecoding(obj, rev)
		got, err := fsm.StampResourceVersion(obj, rev)
		if !ok {
			if err == nil {
				t.Fatalf("stamped %q into %s, want an error", obj, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("stamp %q: %v", obj, err)
		}
		var decoded map[string]any
		if err := unmarshalNumbers(got, &decoded); err != nil {
			t.Fatalf("stamped %q into invalid JSON %q: %v", obj, got, err)
		}
		if !reflect.DeepEqual(decoded, want) {
			t.Fatalf("stamp %q = %s, decodes to %v, want %v", obj, got, decoded, want)
		}
	})
}

// stampByDecoding is the reference: decode, set, and report whether obj
// is an object with a stampable metadata.
func stampByDecoding(obj []byte, rev uint64) (map[string]any, bool) {
	var top map[string]any
	if unmarshalNumbers(obj, &top) != nil || top == nil {
		return nil, false
	}
	meta, isObject := top["metadata"].(map[string]any)
	if m, present := top["metadata"]; present && m != nil && !isObject {
		return nil, false
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta["resourceVersion"] = strconv.FormatUint(rev, 10)
	top["metadata"] = meta
	return top, true
}

func unmarshalNumbers(data []byte, v any) error {
	if !json.Valid(data) {
		return errors.New("invalid JSON")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// FuzzEqualButResourceVersion checks EqualButResourceVersion against
// decoding: two JSON objects it calls equal decode to the same value once
// metadata.resourceVersion is dropped from each, and a compact object
// with a metadata object is equal to itself stamped with any revision.
func FuzzEqualButResourceVersion(f *testing.F) {
	for _, s := range [][2]string{
		{`{"metadata":{"resourceVersion":"1","name":"n"}}`, `{"metadata":{"name":"n","resourceVersion":"2"}}`},
		{`{"metadata":{"name":"n"}}`, `{"metadata":{"name":"n","resourceVersion":"2"}}`},
		{`{"metadata":{"resourceVersion":"1"}}`, `{"metadata":{}}`},
		{`{"metadata":{"resourceVersion":"1","resourceVersion":"2"}}`, `{"metadata":{"resourceVersion":"3"}}`},
		{` { "metadata" : { "a" : 1 , "resourceVersion" : "1" } } `, `{"metadata":{"a":1}}`},
		{`{"metadata":null}`, `{"metadata":{"resourceVersion":"1"}}`},
		{`{"spec":{"metadata":{"resourceVersion":"1"}},"metadata":{}}`, `{"spec":{"metadata":{}},"metadata":{}}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]), uint64(7))
	}
	f.Fuzz(func(t *testing.T, a, b []byte, rev uint64) {
		da, okA := withoutResourceVersion(a)
		db, okB := withoutResourceVersion(b)
		if !okA || !okB {
			return
		}
		if fsm.EqualButResourceVersion(a, b) && !reflect.DeepEqual(da, db) {
			t.Fatalf("%s and %s called equal; they decode to %v and %v", a, b, da, db)
		}
		if _, ok := da["metadata"].(map[string]any); !ok || !compactJSON(a) {
			return
		}
		if stamped, err := fsm.StampResourceVersion(a, rev); err != nil || !fsm.EqualButResourceVersion(a, stamped) {
			t.Fatalf("%s is not equal to itself stamped: %s", a, stamped)
		}
	})
}

// compactJSON reports whether obj is JSON without blanks between tokens.
func compactJSON(obj []byte) bool {
	var c bytes.Buffer
	return json.Compact(&c, obj) == nil && bytes.Equal(c.Bytes(), obj)
}

// withoutResourceVersion decodes obj, a JSON object, and drops its
// metadata.resourceVersion.
func withoutResourceVersion(obj []byte) (map[string]any, bool) {
	var top map[string]any
	if unmarshalNumbers(obj, &top) != nil || top == nil {
		return nil, false
	}
	if meta, ok := top["metadata"].(map[string]any); ok {
		delete(meta, "resourceVersion")
	}
	return top, true
}
