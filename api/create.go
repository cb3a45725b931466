package api

import (
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
	if err := h.admitCreate(r.Context(), obj, ns); err != nil {
		return nil, err
	}
	if h.res.Namespaced {
		if err := h.server.namespaces.admit(r.Context(), h.res, ns, m.GetName()); err != nil {
			return nil, err
		}
	}
	if wp.dryRun {
		h.canonicalize(obj)
		return encodeStored(h.res, obj)
	}
	stored, err := h.createWithName(r, obj, generate)
	if err != nil {
		return nil, err
	}
	return stored.Data, nil
}

// createWithName stores obj; when its name was generated from
// generateName, a collision draws a new name and retries.
func (h *handler) createWithName(r *http.Request, obj runtime.Object, generate bool) (raftstore.Object, error) {
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
		stored, err := h.store().Create(r.Context(), h.res.Key(m.GetNamespace(), m.GetName()), data)
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
