package fsm

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestStampResourceVersionBytes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		rev  uint64
		want string // exact output: only the resourceVersion changes
	}{
		{"empty object", `{}`, 1, `{"metadata":{"resourceVersion":"1"}}`},
		{"members kept in order", `{"b":1,"a":{"z":1,"y":2},"metadata":{"name":"n"}}`, 7,
			`{"b":1,"a":{"z":1,"y":2},"metadata":{"resourceVersion":"7","name":"n"}}`},
		{"overwrites string rv", `{"metadata":{"resourceVersion":"3"}}`, 18446744073709551615,
			`{"metadata":{"resourceVersion":"18446744073709551615"}}`},
		{"overwrites numeric rv", `{"metadata":{"resourceVersion":3}}`, 4, `{"metadata":{"resourceVersion":"4"}}`},
		{"overwrites in place", `{"metadata":{"name":"n","resourceVersion":"12","uid":"u"},"x":[]}`, 5,
			`{"metadata":{"name":"n","resourceVersion":"5","uid":"u"},"x":[]}`},
		{"null metadata", `{"metadata":null}`, 2, `{"metadata":{"resourceVersion":"2"}}`},
		{"empty metadata", `{"a":1,"metadata":{}}`, 2, `{"a":1,"metadata":{"resourceVersion":"2"}}`},
		{"keeps number text", `{"n":1.50,"m":1e3,"big":123456789012345678901234567890}`, 9,
			`{"metadata":{"resourceVersion":"9"},"n":1.50,"m":1e3,"big":123456789012345678901234567890}`},
		{"keeps whitespace", "{ \"a\" : [ 1 , 2 ] }", 3, "{\"metadata\":{\"resourceVersion\":\"3\"}, \"a\" : [ 1 , 2 ] }"},
		{"strings with braces", `{"s":"}{\"","metadata":{"n":"{\\","resourceVersion":"1"}}`, 3,
			`{"s":"}{\"","metadata":{"n":"{\\","resourceVersion":"3"}}`},
		{"escaped key", `{"metad\u0061ta":{"resourceVersion":"1"}}`, 3, `{"metad\u0061ta":{"resourceVersion":"3"}}`},
		{"last duplicate counts", `{"metadata":{"resourceVersion":"1"},"metadata":{"name":"n"}}`, 3,
			`{"metadata":{"resourceVersion":"1"},"metadata":{"resourceVersion":"3","name":"n"}}`},
		{"nested metadata untouched", `{"spec":{"metadata":{"resourceVersion":"1"}}}`, 3,
			`{"metadata":{"resourceVersion":"3"},"spec":{"metadata":{"resourceVersion":"1"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StampResourceVersion([]byte(tc.in), tc.rev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			again, err := StampResourceVersion(got, tc.rev)
			if err != nil || !bytes.Equal(again, got) {
				t.Fatalf("stamping is not idempotent: %s", again)
			}
		})
	}
}

func TestStampResourceVersionRejects(t *testing.T) {
	for _, in := range []string{``, `null`, `[]`, `"x"`, `1`, `true`, `{`, `{"metadata":1}`, `{"metadata":"x"}`, `{"metadata":[]}`, `{}{}`} {
		t.Run(in, func(t *testing.T) {
			if got, err := StampResourceVersion([]byte(in), 1); err == nil {
				t.Fatalf("stamped %q into %s, want error", in, got)
			}
		})
	}
}

func TestObjectUID(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"present", `{"metadata":{"uid":"u-1"}}`, "u-1"},
		{"absent", `{"metadata":{}}`, ""},
		{"no metadata", `{}`, ""},
		{"not a string", `{"metadata":{"uid":5}}`, ""},
		{"not JSON", `x`, ""},
		{"top-level uid ignored", `{"uid":"top","metadata":{}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := objectUID([]byte(tc.in)); got != tc.want {
				t.Fatalf("objectUID = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidKey(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want bool
	}{
		{"empty", "", false},
		{"simple", "/registry/pods/ns/a", true},
		{"non UTF-8", "\xff\xfe", true},
		{"NUL first", "\x00a", false},
		{"NUL inside", "a\x00b", false},
		{"NUL last", "a\x00", false},
		{"0x01 allowed", "a\x01", true},
		{"longest", strings.Repeat("k", bolt.MaxKeySize-9), true},
		{"one too long", strings.Repeat("k", bolt.MaxKeySize-8), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := validKey(tc.key); got != tc.want {
				t.Fatalf("validKey = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		e    Event
	}{
		{"created", Event{Type: Created, Key: "k", Rev: 3, Object: []byte(`{"a":1}`)}},
		{"updated", Event{Type: Updated, Key: "/a/b", Rev: 9, Object: []byte(`{"a":2}`), Prev: []byte(`{"a":1}`), PrevRev: 3}},
		{"deleted", Event{Type: Deleted, Key: "k", Rev: 1 << 40, Object: []byte(`{}`), Prev: []byte(`{"x":0}`), PrevRev: 1<<40 - 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := encodeRecord(&tc.e)
			want := tc.e
			want.Object = nil // found in the state, not in the record
			if got := decodeRecord(tc.e.Rev, v); !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeRecord = %+v, want %+v", got, want)
			}
			if bytes.Contains(v, tc.e.Object) {
				t.Fatalf("record %q stores the object %s", v, tc.e.Object)
			}
			if got := recordKey(tc.e.Rev, v); got != tc.e.Key {
				t.Fatalf("recordKey = %q", got)
			}
			// decodeRecord copies: changing the stored bytes leaves it intact.
			got := decodeRecord(tc.e.Rev, v)
			for i := range v {
				v[i] = 0
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded event aliases the record: %+v", got)
			}
		})
	}
}

func TestCurrentValue(t *testing.T) {
	rev, obj := splitCurrent(currentValue(1<<33+5, []byte(`{"k":"v"}`)))
	if rev != 1<<33+5 || string(obj) != `{"k":"v"}` {
		t.Fatalf("splitCurrent = %d %s", rev, obj)
	}
}

func TestEqualButResourceVersion(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"same bytes", `{"metadata":{"name":"n"},"data":{"k":"v"}}`, `{"metadata":{"name":"n"},"data":{"k":"v"}}`, true},
		{"revisions differ", `{"metadata":{"name":"n","resourceVersion":"1"}}`, `{"metadata":{"name":"n","resourceVersion":"22"}}`, true},
		{"stamped first against in place", `{"metadata":{"resourceVersion":"9","name":"n","uid":"u"}}`, `{"metadata":{"name":"n","resourceVersion":"3","uid":"u"}}`, true},
		{"last member", `{"metadata":{"name":"n","resourceVersion":"9"},"x":1}`, `{"metadata":{"name":"n"},"x":1}`, true},
		{"only member", `{"metadata":{"resourceVersion":"9"}}`, `{"metadata":{}}`, true},
		{"data differs", `{"metadata":{"resourceVersion":"1"},"data":{"k":"v"}}`, `{"metadata":{"resourceVersion":"1"},"data":{"k":"w"}}`, false},
		{"other metadata differs", `{"metadata":{"name":"n","resourceVersion":"1"}}`, `{"metadata":{"name":"m","resourceVersion":"1"}}`, false},
		{"nested resourceVersion counts", `{"metadata":{},"spec":{"metadata":{"resourceVersion":"1"}}}`, `{"metadata":{},"spec":{"metadata":{"resourceVersion":"2"}}}`, false},
		{"key order counts", `{"metadata":{"a":"1","b":"2"}}`, `{"metadata":{"b":"2","a":"1"}}`, false},
		{"no metadata", `{"a":1}`, `{"a":1}`, true},
		{"null metadata", `{"metadata":null}`, `{"metadata":{}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EqualButResourceVersion([]byte(tc.a), []byte(tc.b)); got != tc.want {
				t.Errorf("EqualButResourceVersion(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := EqualButResourceVersion([]byte(tc.b), []byte(tc.a)); got != tc.want {
				t.Errorf("EqualButResourceVersion(%s, %s) = %v, want %v", tc.b, tc.a, got, tc.want)
			}
		})
	}
}
