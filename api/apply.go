package api

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/raftstore"
)

// validatePatchOptions applies kube-apiserver's PatchOptions rules: apply
// needs a fieldManager, and force is for apply only.
func validatePatchOptions(pt types.PatchType, wp *writeParams) error {
	var errs field.ErrorList
	if pt == types.ApplyPatchType && wp.fieldManager == "" {
		errs = append(errs, field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
	}
	if pt != types.ApplyPatchType && wp.force {
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
// owned by wp.manager; fields another manager owns with a different value
// are a 409 Conflict unless wp.force. A missing object is created.
func (h *handler) applyObject(ctx context.Context, ns, name string, body []byte, wp *writeParams) (applied, error) {
	patch, err := decodeApplyConfiguration(body)
	if err != nil {
		return applied{}, err
	}
	fm, err := h.fieldManager()
	if err != nil {
		return applied{}, err
	}
	key := h.res.Key(ns, name)
	for {
		cur, err := h.store().Get(ctx, key, raftstore.ReadOptions{Consistency: raftstore.MostRecent})
		if raftstore.IsNotFound(err) && h.sub == nil {
			a, err := h.applyCreate(ctx, ns, name, patch, wp)
			if raftstore.IsAlreadyExists(err) || apierrors.IsAlreadyExists(err) {
				continue
			}
			return a, err
		}
		if err != nil {
			return applied{}, storeError(err, h.res, name)
		}
		live, err := decodeStored(h.res, cur.Data)
		if err != nil {
			return applied{}, err
		}
		obj, err := fm.Apply(live, patch.DeepCopy(), wp.manager, wp.force)
		if err != nil {
			return applied{}, applyError(err)
		}
		if err := h.checkPatched(obj, ns, name, cur.Rev); err != nil {
			return applied{}, err
		}
		data, err := h.commitTracked(ctx, cur, live, obj, wp)
		if raftstore.IsConflict(err) {
			continue
		}
		if err != nil {
			return applied{}, storeError(err, h.res, name)
		}
		return applied{data: data}, nil
	}
}

// applyCreate creates ns/name from an apply configuration.
func (h *handler) applyCreate(ctx context.Context, ns, name string, patch *unstructured.Unstructured, wp *writeParams) (applied, error) {
	fm, err := h.fieldManager()
	if err != nil {
		return applied{}, err
	}
	empty, err := objectConverter{res: h.res}.New(h.res.GroupVersionKind())
	if err != nil {
		return applied{}, apierrors.NewInternalError(err)
	}
	m := accessor(empty)
	m.SetName(name)
	m.SetNamespace(ns)
	obj, err := fm.Apply(empty, patch.DeepCopy(), wp.manager, wp.force)
	if err != nil {
		return applied{}, applyError(err)
	}
	if err := h.checkPatched(obj, ns, name, 0); err != nil {
		return applied{}, err
	}
	data, err := h.storeNew(ctx, obj, ns, false, wp)
	if err != nil {
		return applied{}, err
	}
	return applied{data: data, created: true}, nil
}

// decodeApplyConfiguration parses an apply patch: YAML (or JSON) of a
// partial object.
func decodeApplyConfiguration(body []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal(body, &u.Object); err != nil {
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
