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
		h.writeObject(w, out, keptStatus(opts), d.data)
		return
	}
	h.writeDeleted(w, name, d.data)
}

// keptStatus is the HTTP status of a delete that leaves the object being
// deleted: 202 when the client asked for cascading deletion with the
// deprecated orphanDependents=false, 200 otherwise, as kube-apiserver
// answers.
func keptStatus(opts *metav1.DeleteOptions) int {
	//lint:ignore SA1019 the deprecated field is still part of the API and decides the status
	if o := opts.OrphanDependents; o != nil && !*o {
		return http.StatusAccepted
	}
	return http.StatusOK
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
// The propagation policy decides the garbage-collection finalizers first
// (deletionFinalizers); an object left with finalizers is marked with a
// deletionTimestamp instead of removed, and goes when its last finalizer
// does. A namespace is marked Terminating and removed by the namespace
// lifecycle once it is empty.
func (h *handler) deleteObject(ctx context.Context, ns, name string, opts *metav1.DeleteOptions) (deleted, error) {
	if h.res == h.server.namespaceResource() && builtin.IsImmortalNamespace(name) {
		return deleted{}, builtin.ImmortalNamespaceError(name)
	}
	key := h.res.Key(ns, name)
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
		d, err := h.deleteCurrent(ctx, key, cur, obj, opts)
		if raftstore.IsConflict(err) {
			continue
		}
		if err != nil {
			return deleted{}, storeError(err, h.res, name)
		}
		return d, nil
	}
}

// deleteCurrent deletes or marks obj, the object stored as cur, as
// kube-apiserver's store does: the propagation finalizers are updated even
// on an object already being deleted, whose deletionTimestamp stays; an
// object left without finalizers is removed.
func (h *handler) deleteCurrent(ctx context.Context, key string, cur raftstore.Object, obj runtime.Object, opts *metav1.DeleteOptions) (deleted, error) {
	dryRun := len(opts.DryRun) > 0
	if isNamespace(obj) {
		return h.markDeleting(ctx, key, cur, obj, dryRun)
	}
	m := accessor(obj)
	finalizers, changed := deletionFinalizers(m, opts)
	m.SetFinalizers(finalizers)
	switch {
	case len(finalizers) == 0:
		return h.remove(ctx, key, cur, obj, dryRun)
	case m.GetDeletionTimestamp() != nil && !changed:
		return deleted{data: cur.Data}, nil
	}
	return h.markDeleting(ctx, key, cur, obj, dryRun)
}

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

// storedPreconditions pin a write to the object as read: its revision and
// its uid.
func storedPreconditions(cur raftstore.Object, obj runtime.Object) raftstore.Preconditions {
	return raftstore.Preconditions{ResourceVersion: cur.Rev, UID: string(accessor(obj).GetUID())}
}

// remove deletes the object at its current revision.
func (h *handler) remove(ctx context.Context, key string, cur raftstore.Object, obj runtime.Object, dryRun bool) (deleted, error) {
	if dryRun {
		return deleted{data: cur.Data, gone: true}, nil
	}
	_, err := h.store().Delete(ctx, key, storedPreconditions(cur, obj))
	if err != nil {
		return deleted{}, err
	}
	return deleted{data: cur.Data, gone: true}, nil
}

// markDeleting stores obj, the object read as cur with its finalizers
// already decided, as being deleted: kube-apiserver's markAsDeleting sets
// deletionTimestamp to now unless an earlier one is set, and
// deletionGracePeriodSeconds to 0 (no resource here deletes gracefully);
// the first mark bumps a set generation. A namespace also enters its
// Terminating phase.
func (h *handler) markDeleting(ctx context.Context, key string, cur raftstore.Object, obj runtime.Object, dryRun bool) (deleted, error) {
	m := accessor(obj)
	if isNamespace(obj) && m.GetDeletionTimestamp() != nil {
		return deleted{data: cur.Data}, nil
	}
	now := metav1.NewTime(h.server.opts.Now())
	if ts := m.GetDeletionTimestamp(); ts == nil || ts.After(now.Time) {
		if ts == nil && m.GetGeneration() > 0 {
			m.SetGeneration(m.GetGeneration() + 1)
		}
		m.SetDeletionTimestamp(&now)
	}
	zero := int64(0)
	m.SetDeletionGracePeriodSeconds(&zero)
	setTerminating(obj)
	data, err := encodeStored(h.res, obj)
	if err != nil || dryRun {
		return deleted{data: data}, err
	}
	stored, err := h.store().Update(ctx, key, data, storedPreconditions(cur, obj))
	if err != nil {
		return deleted{}, err
	}
	h.server.namespaces.kick()
	return deleted{data: stored.Data}, nil
}
