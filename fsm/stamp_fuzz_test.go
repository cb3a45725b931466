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
		` { "metad\u0061ta" : { } } `, `{"metadata":{},"metadata":{"resourceVersion":1}}`, `{"metadata":1}`, `[]`, `{"a":"\\"}`} {
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
