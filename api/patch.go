package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/raftapi/raftapi/raftstore"
)

// patchTypes returns the patch media types the resource accepts.
func (h *handler) patchTypes() []string {
	ts := []string{string(types.JSONPatchType), string(types.MergePatchType)}
	if h.res.Typed() {
		ts = append(ts, string(types.StrategicMergePatchType))
	}
	return append(ts, string(types.ApplyPatchType))
}

// patch serves PATCH with a JSON patch, a JSON merge patch or (for
// resources with a Go type) a strategic merge patch. The patch is applied
// to the newest version and retried on a concurrent change; a
// resourceVersion the patch sets acts as a precondition.
func (h *handler) patch(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	pt, err := h.patchType(r)
	if err != nil {
		writeStatus(w, err)
		return
	}
	out, wp, body, ok := h.writeRequest(w, r, "PatchOptions")
	if !ok {
		return
	}
	if err := validatePatchOptions(pt, wp); err != nil {
		writeStatus(w, err)
		return
	}
	if pt == types.ApplyPatchType {
		a, err := h.applyObject(r.Context(), ns, name, body, wp)
		code := http.StatusOK
		if a.created {
			code = http.StatusCreated
		}
		h.finishWrite(w, out, wp, code, a.data, err)
		return
	}
	data, err := h.patchObject(r.Context(), ns, name, pt, body, wp)
	h.finishWrite(w, out, wp, http.StatusOK, data, err)
}

func (h *handler) patchType(r *http.Request) (types.PatchType, error) {
	mt, err := requestMediaType(r)
	if err != nil {
		return "", err
	}
	for _, t := range h.patchTypes() {
		if mt == t {
			return types.PatchType(mt), nil
		}
	}
	return "", unsupportedMediaType(mt, h.patchTypes())
}

func (h *handler) patchObject(ctx context.Context, ns, name string, pt types.PatchType, patch []byte, wp *writeParams) ([]byte, error) {
	key := h.res.Key(ns, name)
	for {
		cur, err := h.store().Get(ctx, key, raftstore.ReadOptions{Consistency: raftstore.MostRecent})
		if err != nil {
			return nil, storeError(err, h.res, name)
		}
		original, err := servedData(h.res, cur.Data)
		if err != nil {
			return nil, err
		}
		patched, err := h.applyPatch(pt, original, patch)
		if err != nil {
			return nil, err
		}
		pwp := *wp
		obj, err := h.decodeAs(mediaJSON, patched, &pwp)
		if err != nil {
			return nil, err
		}
		if err := h.checkPatched(obj, ns, name, cur.Rev); err != nil {
			return nil, err
		}
		data, err := h.commitUpdate(ctx, cur, obj, &pwp)
		if raftstore.IsConflict(err) {
			continue
		}
		if err != nil {
			return nil, storeError(err, h.res, name)
		}
		wp.warnings = pwp.warnings
		return data, nil
	}
}

// applyPatch applies a patch of type pt to a stored object.
func (h *handler) applyPatch(pt types.PatchType, original, patch []byte) ([]byte, error) {
	if !json.Valid(patch) {
		return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: invalid JSON in the patch")
	}
	switch pt {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		out, err := p.Apply(original)
		if err != nil {
			return nil, h.patchFailed(err)
		}
		return out, nil
	case types.MergePatchType:
		out, err := jsonpatch.MergePatch(original, patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
	out, err := strategicpatch.StrategicMergePatch(original, patch, h.res.New())
	if err != nil {
		return nil, h.patchFailed(err)
	}
	return out, nil
}

// patchFailed is the 422 of a patch that cannot be applied to the object,
// in kube-apiserver's generic form.
func (h *handler) patchFailed(err error) error {
	return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
}

// checkPatched checks a patched object against the request: the name
// and namespace are the URL's, and a resourceVersion the patch set must be
// the current one (rev; 0 when there is no object yet).
func (h *handler) checkPatched(obj runtime.Object, ns, name string, rev uint64) error {
	if err := h.checkIdentity(obj, ns, name); err != nil {
		return err
	}
	want, err := parseRV(accessor(obj).GetResourceVersion())
	if err != nil {
		return err
	}
	if want != 0 && want != rev {
		return apierrors.NewConflict(h.res.GroupResource(), name, fmt.Errorf("%s", conflictMessage))
	}
	return nil
}
