package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// Patch applies a patch of type pt to ns/name: a JSON patch, a JSON
// merge patch, a strategic merge patch (resources with a Go type) or a
// server-side apply configuration. The patch is applied to the newest
// version and retried on a concurrent change; a resourceVersion the patch
// sets acts as a precondition. An apply of a missing object creates it.
func (s *Store) Patch(ctx context.Context, ns, name string, pt types.PatchType, patch []byte, opts WriteOptions) (Result, error) {
	if err := validatePatchOptions(pt, opts); err != nil {
		return Result{}, err
	}
	wp := &writeParams{WriteOptions: opts}
	if s.isScale() {
		data, err := s.patchScale(ctx, ns, name, pt, patch, wp)
		if err != nil {
			return Result{}, err
		}
		return Result{Data: data, Warnings: wp.warnings}, nil
	}
	if pt == types.ApplyPatchType {
		a, err := s.applyObject(ctx, ns, name, patch, wp)
		if err != nil {
			return Result{}, err
		}
		return Result{Data: a.data, Warnings: wp.warnings, Created: a.created}, nil
	}
	data, err := s.patchObject(ctx, ns, name, pt, patch, wp)
	if err != nil {
		return Result{}, err
	}
	return Result{Data: data, Warnings: wp.warnings}, nil
}

func (s *Store) patchObject(ctx context.Context, ns, name string, pt types.PatchType, patch []byte, wp *writeParams) ([]byte, error) {
	return s.updateLoop(ctx, s.res.Key(ns, name), name, 0, wp, func(cur Object) ([]byte, error) {
		return s.patchCurrent(ctx, cur, ns, name, pt, patch, wp)
	})
}

// patchCurrent patches cur and commits the result. Each attempt decodes
// anew: only the last one's warnings count.
func (s *Store) patchCurrent(ctx context.Context, cur Object, ns, name string, pt types.PatchType, patch []byte, wp *writeParams) ([]byte, error) {
	original, err := codec.ServedData(s.res, cur.Data)
	if err != nil {
		return nil, err
	}
	patched, err := applyPatch(s.res, pt, original, patch)
	if err != nil {
		return nil, err
	}
	obj, warnings, err := s.reg.Codecs().Decode(s.res, codec.MediaJSON, patched, wp.FieldValidation)
	if err != nil {
		return nil, codec.PatchedError(patched, err)
	}
	if err := checkPatched(s.res, obj, ns, name, cur.Rev); err != nil {
		return nil, err
	}
	wp.warnings = warnings
	return s.commitUpdate(ctx, cur, obj, wp)
}

// kube-apiserver's JSON patch limits: the operations of one patch, and the
// bytes its copy operations may add in all (its JSONPatchMaxCopyBytes,
// 3 MiB by default), without which a small patch of copies doubles an
// object again and again in memory.
const (
	maxJSONPatchOperations = 10000
	maxJSONPatchCopyBytes  = 3 << 20
)

// init sets json-patch's copy limit, a package variable, as kube-apiserver
// does when it is built: never raising a lower limit set before.
func init() {
	if cur := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit); cur <= 0 || cur > maxJSONPatchCopyBytes {
		atomic.StoreInt64(&jsonpatch.AccumulatedCopySizeLimit, maxJSONPatchCopyBytes)
	}
}

// applyPatch applies a patch of type pt to a stored object.
func applyPatch(res *resource.Resource, pt types.PatchType, original, patch []byte) ([]byte, error) {
	if !json.Valid(patch) {
		return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: invalid JSON in the patch")
	}
	switch pt {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(p) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(
				fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(p)))
		}
		out, err := p.Apply(original)
		if err != nil {
			return nil, patchFailed(err)
		}
		return out, nil
	case types.MergePatchType:
		out, err := jsonpatch.MergePatch(original, patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
	out, err := strategicpatch.StrategicMergePatch(original, patch, res.New())
	if err != nil {
		return nil, patchFailed(err)
	}
	return out, nil
}

// patchFailed is the 422 of a patch that cannot be applied to the object,
// in kube-apiserver's generic form.
func patchFailed(err error) error {
	return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
}

// checkPatched checks a patched object against the request: the name
// and namespace are the URL's, and a resourceVersion the patch set must be
// the current one (rev; 0 when there is no object yet).
func checkPatched(res *resource.Resource, obj runtime.Object, ns, name string, rev uint64) error {
	if err := checkIdentity(res, obj, ns, name); err != nil {
		return err
	}
	want, err := parseRV(codec.Accessor(obj).GetResourceVersion())
	if err != nil {
		return err
	}
	if want != 0 && want != rev {
		return apierrors.NewConflict(res.GroupResource(), name, fmt.Errorf("%s", conflictMessage))
	}
	return nil
}
