package api

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/raftapi/raftapi/raftstore"
)

// maxGenerateNameAttempts bounds retries when a generated name collides.
const maxGenerateNameAttempts = 8

// create serves POST on a collection: 201 with the stored object.
func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	ns, _ := pathVars(r)
	out, wp, body, ok := h.writeRequest(w, r, "CreateOptions")
	if !ok {
		return
	}
	obj, err := h.decodeBody(r, body, wp)
	var data []byte
	if err == nil {
		data, err = h.createObject(r, obj, ns, wp)
	}
	h.finishWrite(w, out, wp, http.StatusCreated, data, err)
}

// createObject admits and stores a new object, returning its stored form.
func (h *handler) createObject(r *http.Request, obj runtime.Object, ns string, wp *writeParams) ([]byte, error) {
	m := accessor(obj)
	generate := m.GetName() == "" && m.GetGenerateName() != ""
	if generate {
		m.SetName(m.GetGenerateName() + utilrand.String(5))
	}
	obj, err := h.trackCreate(obj, wp)
	if err != nil {
		return nil, err
	}
	return h.storeNew(r.Context(), obj, ns, generate, wp)
}

// storeNew admits obj, whose managedFields are set, and stores it.
func (h *handler) storeNew(ctx context.Context, obj runtime.Object, ns string, generate bool, wp *writeParams) ([]byte, error) {
	m := accessor(obj)
	if err := h.admitCreate(ctx, obj, ns); err != nil {
		return nil, err
	}
	if h.res.Namespaced {
		if err := h.server.namespaces.admit(ctx, h.res, ns, m.GetName()); err != nil {
			return nil, err
		}
	}
	if wp.dryRun {
		return h.dryRunCreate(ctx, obj)
	}
	stored, err := h.createWithName(ctx, obj, generate)
	if err != nil {
		return nil, err
	}
	return stored.Data, nil
}

// createWithName stores obj; when its name was generated from
// generateName, a collision draws a new name and retries.
func (h *handler) createWithName(ctx context.Context, obj runtime.Object, generate bool) (raftstore.Object, error) {
	m := accessor(obj)
	for attempt := 0; ; attempt++ {
		if generate && attempt > 0 {
			m.SetName(m.GetGenerateName() + utilrand.String(5))
		}
		h.canonicalize(obj)
		data, err := encodeStored(h.res, obj)
		if err != nil {
			return raftstore.Object{}, err
		}
		stored, err := h.store().Create(ctx, h.res.Key(m.GetNamespace(), m.GetName()), data)
		if generate && raftstore.IsAlreadyExists(err) && attempt < maxGenerateNameAttempts {
			continue
		}
		if generate && raftstore.IsAlreadyExists(err) {
			return stored, apierrors.NewGenerateNameConflict(h.res.GroupResource(), m.GetName(), 1)
		}
		if err != nil {
			return stored, storeError(err, h.res, m.GetName())
		}
		return stored, nil
	}
}

// dryRunCreate answers a dry-run create: what would be stored, or
// AlreadyExists when the name is taken, as a real create would.
func (h *handler) dryRunCreate(ctx context.Context, obj runtime.Object) ([]byte, error) {
	h.canonicalize(obj)
	m := accessor(obj)
	_, err := h.store().Get(ctx, h.res.Key(m.GetNamespace(), m.GetName()), raftstore.ReadOptions{Consistency: raftstore.MostRecent})
	switch {
	case err == nil:
		return nil, apierrors.NewAlreadyExists(h.res.GroupResource(), m.GetName())
	case !raftstore.IsNotFound(err):
		return nil, storeError(err, h.res, m.GetName())
	}
	return encodeStored(h.res, obj)
}
