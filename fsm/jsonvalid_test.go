package fsm

import (
	"encoding/json"
	"strings"
	"testing"
)

// validJSONCases are inputs at the edges of the grammar, for the table
// test and as the fuzz seed corpus.
var validJSONCases = []string{
	``, ` `, `{}`, ` {} `, `[]`, `[ ]`, `{ }`, `{"a":1}`, `{"a" : [1, 2.5, -0.1e+3, true, false, null, "s"]}`,
	`"\"\\\/\b\f\n\r\t\u00e9\uD834\uDD1E"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"\x1f\"", "\"\x7f\xff\"", `"abc`, `"\`,
	`0`, `-0`, `01`, `-`, `1.`, `.5`, `1.5e`, `1e+`, `1E-2`, `2e3.4`, `-a`, `+1`, `1 2`, `123abc`,
	`true`, `tru`, `truex`, `nul`, `null `, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{1:2}`,
	`{"a":1 "b":2}`, `[1 2]`, `[}`, `{]`, `[[[]]]`, `[[[]]`, `{"a":{"b":{}}}}`, "{\t\n\r\"a\"\n:\r1}", `{}{}`, `}`,
	"\x00", `{"a":1}` + "\x00",
}

func TestValidJSON(t *testing.T) {
	for _, in := range validJSONCases {
		if got, want := validJSON([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", in, got, want)
		}
	}
	for _, depth := range []int{maxNestingDepth - 1, maxNestingDepth, maxNestingDepth + 1} {
		for _, pair := range []string{"[]", `{}`} {
			in := strings.Repeat(`{"a":`, depth-1) + pair + strings.Repeat(`}`, depth-1)
			if pair == "[]" {
				in = strings.Repeat("[", depth) + strings.Repeat("]", depth)
			}
			if got, want := validJSON([]byte(in)), json.Valid([]byte(in)); got != want {
				t.Errorf("%s nested %d deep: validJSON %v, json.Valid %v", pair, depth, got, want)
			}
		}
	}
}

// FuzzValidJSON holds validJSON to json.Valid's answer on every input.
func FuzzValidJSON(f *testing.F) {
	for _, in := range validJSONCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", data, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	obj := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench-1","namespace":"bench","uid":"0c1d2e3f-aaaa-bbbb-cccc-1234567890ab","creationTimestamp":"2026-11-25T18:00:00Z","managedFields":[{"manager":"raftapi-bench","operation":"Update","apiVersion":"v1","time":"2026-11-25T18:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:value":{}}}}]},"data":{"value":"` + strings.Repeat("x", 1024) + `"}}`)
	b.Run("validJSON", func(b *testing.B) {
		b.SetBytes(int64(len(obj)))
		for b.Loop() {
			validJSON(obj)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(obj)))
		for b.Loop() {
			json.Valid(obj)
		}
	})
}
