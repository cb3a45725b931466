package convwebhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// converted checks the objects the webhook returned for c, in order, and
// returns them with their metadata restored (metadata.go).
func (c *call) converted(raw []runtime.RawExtension) ([]map[string]any, error) {
	out := make([]map[string]any, len(raw))
	for i := range raw {
		o, err := c.convertedObject(i, raw[i])
		if err != nil {
			return nil, err
		}
		out[i] = o
	}
	return out, nil
}

// convertedObject checks raw, the conversion of c.objs[i]: a JSON object
// in the desired version, of the same kind, name, namespace and UID, whose
// metadata is then restored from the original.
func (c *call) convertedObject(i int, raw runtime.RawExtension) (map[string]any, error) {
	converted := &unstructured.Unstructured{}
	if err := converted.UnmarshalJSON(raw.Raw); err != nil {
		if c.batch {
			return nil, c.invalidObject(i, err)
		}
		return nil, internal(err.Error())
	}
	original := &unstructured.Unstructured{Object: c.objs[i]}
	if got := converted.GroupVersionKind().GroupVersion(); got != c.desired {
		return nil, c.invalidObject(i, fmt.Errorf("invalid groupVersion (expected %v, received %v)", c.desired, got))
	}
	if want, got := original.GetKind(), converted.GetKind(); want != got {
		return nil, c.invalidObject(i, fmt.Errorf("invalid kind (expected %v, received %v)", want, got))
	}
	if err := sameObject(original, converted); err != nil {
		return nil, c.invalidIdentity(i, err)
	}
	if err := restoreObjectMeta(original, converted); err != nil {
		return nil, c.invalidMetadata(i, err)
	}
	return converted.Object, nil
}

// sameObject checks that out is in: same kind, name, namespace and UID.
func sameObject(in, out *unstructured.Unstructured) error {
	if e, a := in.GetKind(), out.GetKind(); e != a {
		return fmt.Errorf("must have the same kind: %v != %v", e, a)
	}
	if e, a := in.GetName(), out.GetName(); e != a {
		return fmt.Errorf("must have the same name: %v != %v", e, a)
	}
	if e, a := in.GetNamespace(), out.GetNamespace(); e != a {
		return fmt.Errorf("must have the same namespace: %v != %v", e, a)
	}
	if e, a := in.GetUID(), out.GetUID(); e != a {
		return fmt.Errorf("must have the same UID: %v != %v", e, a)
	}
	return nil
}
