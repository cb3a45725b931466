package convwebhook

import (
	"fmt"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/apiextensions/internal/jsonvalue"
)

// restoreObjectMeta is kube's: converted's metadata becomes a deep copy
// of original's, except labels and annotations, which are converted's.
// Changed labels or annotations must be valid; a webhook may not touch the
// rest of the metadata (finalizers, generation, managedFields, ...), so
// whatever it did there is undone rather than refused.
func restoreObjectMeta(original, converted *unstructured.Unstructured) error {
	obj, found := converted.Object["metadata"]
	if !found {
		return fmt.Errorf("missing metadata in converted object")
	}
	answered, ok := obj.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %T in converted object", obj)
	}
	restored := map[string]any{}
	if m, found := original.Object["metadata"]; found {
		if restored, ok = jsonvalue.DeepCopy(m).(map[string]any); !ok {
			return fmt.Errorf("invalid metadata of type %T in input object", m)
		}
	}
	converted.Object["metadata"] = restored
	for _, fld := range []string{"labels", "annotations"} {
		if err := keepStringMap(fld, answered, restored); err != nil {
			return err
		}
	}
	return nil
}

// keepStringMap sets restored[fld] to answered[fld] (removing it when the
// webhook answered none), after checking that a changed map is valid.
func keepStringMap(fld string, answered, restored map[string]any) error {
	obj, found := answered[fld]
	if !found || obj == nil {
		delete(restored, fld)
		return nil
	}
	got, ok := obj.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata.%s of type %T in converted object", fld, obj)
	}
	was, ok := restored[fld].(map[string]any)
	if !ok && restored[fld] != nil {
		return fmt.Errorf("invalid metadata.%s of type %T in original object", fld, restored[fld])
	}
	changed := len(was) != len(got)
	values := make(map[string]string, len(got))
	for k, v := range got {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("metadata.%s[%s] must be a string, but is %T in converted object", fld, k, v)
		}
		if was[k] != any(s) {
			changed = true
		}
		values[k] = s
	}
	if changed {
		if errs := validateStringMap(fld, values); len(errs) > 0 {
			return errs.ToAggregate()
		}
	}
	restored[fld] = got
	return nil
}

// validateStringMap validates changed labels or annotations, with the
// field paths of kube's messages ("metadata.annotation", sic).
func validateStringMap(fld string, m map[string]string) field.ErrorList {
	if fld == "labels" {
		return metav1validation.ValidateLabels(m, field.NewPath("metadata", "labels"))
	}
	return apivalidation.ValidateAnnotations(m, field.NewPath("metadata", "annotation"))
}
