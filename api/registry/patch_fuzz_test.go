package registry

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// FuzzApplyPatch: any JSON patch or merge patch body applied to a stored
// ConfigMap gives valid JSON or an error, never a panic, and the copy
// limit holds whatever the patch.
func FuzzApplyPatch(f *testing.F) {
	original := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","labels":{"x":"y"}},"data":{"k":"v"}}`)
	f.Add(true, []byte(`[{"op":"add","path":"/data/j","value":"json"}]`))
	f.Add(true, []byte(`[{"op":"copy","from":"/metadata","path":"/metadata/annotations"},{"op":"copy","from":"/metadata","path":"/data/x"}]`))
	f.Add(true, []byte(`[{"op":"move","from":"/data","path":"/data/k"}]`))
	f.Add(true, []byte(`[{"op":"remove","path":"/metadata/labels/-1"}]`))
	f.Add(false, []byte(`{"data":{"k":null,"n":"1"}}`))
	f.Add(false, []byte(`null`))
	f.Fuzz(func(t *testing.T, jsonPatch bool, patch []byte) {
		pt := types.MergePatchType
		if jsonPatch {
			pt = types.JSONPatchType
		}
		out, err := applyPatch(nil, pt, original, patch)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s patch %q gave invalid JSON %q", pt, patch, out)
		}
		if len(out) > len(original)+len(patch)*2+maxJSONPatchCopyBytes {
			t.Fatalf("%s patch of %d bytes grew the object to %d bytes", pt, len(patch), len(out))
		}
	})
}
