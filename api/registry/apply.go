package registry

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/api/codec"
)

// validatePatchOptions applies kube-apiserver's PatchOptions rules: apply
// needs a fieldManager, and force is for apply only.
func validatePatchOptions(pt types.PatchType, wp WriteOptions) error {
	var errs field.ErrorList
	if pt == types.ApplyPatchType && wp.FieldManager == "" {
		errs = append(errs, field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
	}
	if pt != types.ApplyPatchType && wp.Force {
		errs = append(errs, field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	return nil
}

// applied is the outcome of an apply: the stored form and whether the
// apply created the object.
type applied struct {
	data    []byte
	created bool
}

// applyObject serves a server-side apply of the configuration in body to
// ns/name: the configuration's fields are merged into the live object and
// owned by wp.Manager; fields another manager owns with a different value
// are a 409 Conflict unless wp.Force. A missing object is created.
func (s *Store) applyObject(ctx context.Context, ns, name string, body []byte, wp *writeParams) (applied, error) {
	patch, err := decodeApplyConfiguration(body)
	if err != nil {
		return applied{}, err
	}
	fm, err := s.fieldManager()
	if err != nil {
		return applied{}, err
	}
	key := s.res.Key(ns, name)
	read := freshRead
	for {
		cur, err := s.storage().Get(ctx, key, read)
		if IsNotFound(err) && read.Consistency != MostRecent {
			read = mostRecent // a create is decided on the most recent state
			continue
		}
		if IsNotFound(err) && s.sub == nil {
			a, err := s.applyCreate(ctx, ns, name, patch, wp)
			if IsAlreadyExists(err) || apierrors.IsAlreadyExists(err) {
				continue
			}
			return a, err
		}
		if err != nil {
			return applied{}, storeError(err, s.res, name)
		}
		data, err := s.applyTo(ctx, fm, cur, ns, name, patch, wp)
		if decideAgain(read, err, wp.decided()) {
			read = mostRecent
			continue
		}
		if IsConflict(err) {
			continue
		}
		if err != nil {
			return applied{}, storeError(err, s.res, name)
		}
		return applied{data: data}, nil
	}
}

// applyTo applies the configuration patch to cur, the live object, and
// commits the result.
func (s *Store) applyTo(ctx context.Context, fm *managedfields.FieldManager, cur Object, ns, name string, patch *unstructured.Unstructured, wp *writeParams) ([]byte, error) {
	live, err := codec.DecodeStored(s.res, cur.Data)
	if err != nil {
		return nil, err
	}
	obj, err := fm.Apply(live, patch.DeepCopy(), wp.Manager, wp.Force)
	if err != nil {
		return nil, applyError(err)
	}
	if err := checkPatched(s.res, obj, ns, name, cur.Rev); err != nil {
		return nil, err
	}
	return s.commitTracked(ctx, cur, live, obj, wp)
}

// applyCreate creates ns/name from an apply configuration.
func (s *Store) applyCreate(ctx context.Context, ns, name string, patch *unstructured.Unstructured, wp *writeParams) (applied, error) {
	fm, err := s.fieldManager()
	if err != nil {
		return applied{}, err
	}
	empty, err := objectConverter{res: s.res}.New(s.res.GroupVersionKind())
	if err != nil {
		return applied{}, apierrors.NewInternalError(err)
	}
	m := codec.Accessor(empty)
	m.SetName(name)
	m.SetNamespace(ns)
	obj, err := fm.Apply(empty, patch.DeepCopy(), wp.Manager, wp.Force)
	if err != nil {
		return applied{}, applyError(err)
	}
	if err := checkPatched(s.res, obj, ns, name, 0); err != nil {
		return applied{}, err
	}
	data, err := s.storeNew(ctx, obj, ns, false, wp)
	if err != nil {
		return applied{}, err
	}
	return applied{data: data, created: true}, nil
}

// decodeApplyConfiguration parses an apply patch: YAML (or JSON) of a
// partial object, its integers as int64 (as every other body is decoded:
// a schema's integer field refuses a float64).
func decodeApplyConfiguration(body []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	js, err := yaml.YAMLToJSON(body)
	if err == nil {
		err = utiljson.Unmarshal(js, &u.Object)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	if u.Object == nil {
		return nil, apierrors.NewBadRequest("error decoding YAML: the body of the request was empty")
	}
	return u, nil
}

// applyError passes the field manager's Status errors (409 conflicts
// with FieldManagerConflict causes, 400 for a malformed configuration)
// through and turns any other failure into kube-apiserver's 500.
func applyError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewInternalError(err)
}
