package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/raftstore"
)

// update serves PUT. With a resourceVersion in the body it is a
// compare-and-swap (409 when stale); without, it is unconditional: the
// server reads the current version and retries on a concurrent change.
func (h *handler) update(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	out, wp, body, ok := h.writeRequest(w, r, "UpdateOptions")
	if !ok {
		return
	}
	obj, err := h.decodeBody(r, body, wp)
	var data []byte
	if err == nil {
		data, err = h.replace(r.Context(), ns, name, obj, wp)
	}
	h.finishWrite(w, out, wp, http.StatusOK, data, err)
}

// replace stores obj as the new version of ns/name.
func (h *handler) replace(ctx context.Context, ns, name string, obj runtime.Object, wp *writeParams) ([]byte, error) {
	if err := h.checkIdentity(obj, ns, name); err != nil {
		return nil, err
	}
	want, err := parseRV(accessor(obj).GetResourceVersion())
	if err != nil {
		return nil, err
	}
	// A lagging node must not answer 409 for a version the client saw
	// elsewhere: read at least as new as the version the body names.
	read := raftstore.ReadOptions{Consistency: raftstore.Any}
	if want != 0 {
		read = raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: want}
	}
	key := h.res.Key(ns, name)
	for {
		cur, err := h.store().Get(ctx, key, read)
		if raftstore.IsNotFound(err) && read.Consistency != raftstore.MostRecent {
			// This node's state may predate the object (a create it
			// has not applied, or a re-create after a delete it has):
			// only a quorum read may answer 404.
			read = raftstore.ReadOptions{Consistency: raftstore.MostRecent}
			continue
		}
		if err != nil {
			return nil, storeError(err, h.res, name)
		}
		if want != 0 && want != cur.Rev {
			return nil, apierrors.NewConflict(h.res.GroupResource(), name, fmt.Errorf("%s", conflictMessage))
		}
		next := obj.DeepCopyObject()
		data, err := h.commitUpdate(ctx, cur, next, wp)
		if raftstore.IsConflict(err) && want == 0 {
			read = raftstore.ReadOptions{Consistency: raftstore.MostRecent}
			continue
		}
		if err != nil {
			return nil, storeError(err, h.res, name)
		}
		return data, nil
	}
}

func parseRV(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest("invalid resourceVersion: " + rv)
	}
	return n, nil
}

// commitUpdate admits obj as the replacement of cur and stores it with cur's
// revision as precondition. It returns the stored form; an update that
// changes nothing is not written and returns cur as it is. When the update
// removes the last finalizer of an object being deleted, the object is
// deleted after the update. A store Conflict is returned unwrapped so the
// caller can retry.
func (h *handler) commitUpdate(ctx context.Context, cur raftstore.Object, obj runtime.Object, wp *writeParams) ([]byte, error) {
	old, err := decodeStored(h.res, cur.Data)
	if err != nil {
		return nil, err
	}
	if obj, err = h.trackUpdate(old, obj, wp); err != nil {
		return nil, err
	}
	return h.commitTracked(ctx, cur, old, obj, wp)
}

// commitTracked is commitUpdate for obj whose managedFields are already
// computed (an apply).
func (h *handler) commitTracked(ctx context.Context, cur raftstore.Object, old, obj runtime.Object, wp *writeParams) ([]byte, error) {
	obj, err := h.resetForSubresource(obj, old)
	if err != nil {
		return nil, err
	}
	if err := h.admitUpdate(obj, old); err != nil {
		return nil, err
	}
	h.canonicalize(obj)
	data, err := encodeStored(h.res, obj)
	if err != nil {
		return nil, err
	}
	same, specChanged := compareStored(data, cur.Data)
	if same {
		return cur.Data, nil
	}
	if specChanged {
		if data, err = h.bumpGeneration(obj); err != nil {
			return nil, err
		}
	}
	if wp.dryRun {
		return data, nil
	}
	key := h.res.Key(accessor(obj).GetNamespace(), accessor(obj).GetName())
	stored, err := h.store().Update(ctx, key, data, raftstore.Preconditions{ResourceVersion: cur.Rev})
	if err != nil {
		return nil, err
	}
	if finalized(obj) {
		_, err := h.store().Delete(ctx, key, raftstore.Preconditions{ResourceVersion: stored.Rev})
		if err != nil && !raftstore.IsConflict(err) && !raftstore.IsNotFound(err) {
			return nil, err
		}
	}
	return stored.Data, nil
}

// finalized reports whether obj is being deleted and nothing holds it
// any longer.
func finalized(obj runtime.Object) bool {
	m := accessor(obj)
	return m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 && !holdsItself(obj)
}

// checkIdentity checks that obj names the object of the URL: the same
// name and, when it has one, the same namespace.
func (h *handler) checkIdentity(obj runtime.Object, ns, name string) error {
	m := accessor(obj)
	if m.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name))
	}
	if h.res.Namespaced && m.GetNamespace() != "" && m.GetNamespace() != ns {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}
