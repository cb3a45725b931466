package jsonvalue

import (
	"reflect"
	"testing"
)

func TestDeepCopySharesNothing(t *testing.T) {
	in := map[string]any{"a": []any{map[string]any{"b": 1}, "s"}, "n": int64(2), "f": 1.5, "nil": nil}
	out := DeepCopyObject(in)
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("copy %v, want %v", out, in)
	}
	out["a"].([]any)[0].(map[string]any)["b"] = 9
	out["a"].([]any)[1] = "t"
	if in["a"].([]any)[0].(map[string]any)["b"] != 1 || in["a"].([]any)[1] != "s" {
		t.Fatalf("changing the copy changed the original: %v", in)
	}
	if DeepCopyObject(nil) != nil {
		t.Fatal("DeepCopyObject(nil) is not nil")
	}
}
