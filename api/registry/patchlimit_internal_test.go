package registry

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestJSONPatchCopyLimit: the copies of one JSON patch add at most
// maxJSONPatchCopyBytes (3 MiB): two copies of 1 MiB pass, three fail
// with kube's generic 422.
func TestJSONPatchCopyLimit(t *testing.T) {
	doc := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
	patch := `[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"},{"op":"copy","from":"/a","path":"/d"}]`
	_, err := applyPatch(nil, types.JSONPatchType, []byte(doc), []byte(patch))
	if err == nil || !strings.Contains(err.Error(), "the server rejected our request") {
		t.Fatalf("3 MiB of copies: %v", err)
	}
	two := `[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]`
	if _, err := applyPatch(nil, types.JSONPatchType, []byte(doc), []byte(two)); err != nil {
		t.Fatalf("2 MiB of copies: %v", err)
	}
}
