package api

import (
	"context"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/raftstore"
)

// deleted is the outcome of a delete: the object is gone (a Status is
// returned) or it stays, being deleted, held by finalizers (the object is
// returned).
type deleted struct {
	data []byte // the object's last stored form
	gone bool
}

// delete serves DELETE of one object.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	out, err := negotiate(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	opts, err := h.deleteOptions(r)
	if err != nil {
		writeStatus(w, err)
		return
	}
	d, err := h.deleteObject(r.Context(), ns, name, opts)
	if err != nil {
		writeStatus(w, err)
		return
	}
	if !d.gone {
		h.writeObject(w, out, http.StatusOK, d.data)
		return
	}
	h.writeDeleted(w, name, d.data)
}

// writeDeleted writes the success Status of a delete.
func (h *handler) writeDeleted(w http.ResponseWriter, name string, data []byte) {
	var uid string
	if obj, err := decodeStored(h.res, data); err == nil {
		uid = string(accessor(obj).GetUID())
	}
	writeStatusObject(w, http.StatusOK, &metav1.Status{
		Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name: name, Group: h.res.Group, Kind: h.res.Plural, UID: typesUID(uid),
		},
	})
}

// deleteObject deletes ns/name after checking the options' preconditions.
// An object with finalizers is marked with a deletionTimestamp instead,
// and removed when its last finalizer goes; a namespace is marked
// Terminating and removed by the namespace lifecycle once it is empty.
func (h *handler) deleteObject(ctx context.Context, ns, name string, opts *metav1.DeleteOptions) (deleted, error) {
	if h.res == h.server.namespaceResource() && builtin.IsImmortalNamespace(name) {
		return deleted{}, builtin.ImmortalNamespaceError(name)
	}
	key := h.res.Key(ns, name)
	dryRun := len(opts.DryRun) > 0
	for {
		cur, err := h.store().Get(ctx, key, raftstore.ReadOptions{Consistency: raftstore.MostRecent})
		if err != nil {
			return deleted{}, storeError(err, h.res, name)
		}
		obj, err := decodeStored(h.res, cur.Data)
		if err != nil {
			return deleted{}, err
		}
		if err := h.checkPreconditions(obj, cur.Rev, opts.Preconditions, name); err != nil {
			return deleted{}, err
		}
		var d deleted
		if held(obj) || isNamespace(obj) {
			d, err = h.markDeleting(ctx, key, cur, obj, dryRun)
		} else {
			d, err = h.remove(ctx, key, cur, dryRun)
		}
		if raftstore.IsConflict(err) {
			continue
		}
		if err != nil {
			return deleted{}, storeError(err, h.res, name)
		}
		return d, nil
	}
}

// held reports whether finalizers keep obj after a delete.
func held(obj runtime.Object) bool { return len(accessor(obj).GetFinalizers()) > 0 }

func (h *handler) checkPreconditions(obj runtime.Object, rev uint64, p *metav1.Preconditions, name string) error {
	if p == nil {
		return nil
	}
	m := accessor(obj)
	if p.UID != nil && *p.UID != m.GetUID() {
		return conflictf(h, name, "Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID())
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != fmt.Sprint(rev) {
		return conflictf(h, name, "Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, rev)
	}
	return nil
}

// remove deletes the object at its current revision.
func (h *handler) remove(ctx context.Context, key string, cur raftstore.Object, dryRun bool) (deleted, error) {
	if dryRun {
		return deleted{data: cur.Data, gone: true}, nil
	}
	_, err := h.store().Delete(ctx, key, raftstore.Preconditions{ResourceVersion: cur.Rev})
	if err != nil {
		return deleted{}, err
	}
	return deleted{data: cur.Data, gone: true}, nil
}

// markDeleting sets the object's deletionTimestamp (once) and, for a
// namespace, its Terminating phase.
func (h *handler) markDeleting(ctx context.Context, key string, cur raftstore.Object, obj runtime.Object, dryRun bool) (deleted, error) {
	m := accessor(obj)
	if m.GetDeletionTimestamp() != nil {
		return deleted{data: cur.Data}, nil
	}
	now := metav1.NewTime(h.server.opts.Now())
	zero := int64(0)
	m.SetDeletionTimestamp(&now)
	m.SetDeletionGracePeriodSeconds(&zero)
	setTerminating(obj)
	data, err := encodeStored(h.res, obj)
	if err != nil || dryRun {
		return deleted{data: data}, err
	}
	stored, err := h.store().Update(ctx, key, data, raftstore.Preconditions{ResourceVersion: cur.Rev})
	if err != nil {
		return deleted{}, err
	}
	h.server.namespaces.kick()
	return deleted{data: stored.Data}, nil
}
