package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/raftstore"
)

// maxBodyBytes is kube-apiserver's request body limit.
const maxBodyBytes = 3 << 20

// maxGenerateNameAttempts bounds retries when a generated name collides.
const maxGenerateNameAttempts = 8

func typesUID(s string) types.UID { return types.UID(s) }

func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, apierrors.NewBadRequest("reading request body: " + err.Error())
	}
	if len(body) > maxBodyBytes {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", maxBodyBytes))
	}
	return body, nil
}

// decodeObject reads the request body as an object of h's kind.
func (h *handler) decodeObject(r *http.Request, ns string) (*unstructured.Unstructured, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(body); err != nil {
		return nil, apierrors.NewBadRequest("the body of the request was in an unknown format: " + err.Error())
	}
	if u.GetKind() != h.res.Kind || u.GetAPIVersion() != h.res.APIVersion() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) or kind (%s) does not match the expected %s %s",
			u.GetAPIVersion(), u.GetKind(), h.res.APIVersion(), h.res.Kind))
	}
	if h.res.Namespaced {
		if u.GetNamespace() != "" && u.GetNamespace() != ns {
			return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		u.SetNamespace(ns)
	}
	return u, nil
}

func (h *handler) validateName(name string) error {
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return apierrors.NewInvalid(schemaGK(h.res), name, field.ErrorList{
			field.Invalid(field.NewPath("metadata", "name"), name, strings.Join(msgs, "; ")),
		})
	}
	return nil
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	ns, _ := pathVars(r)
	u, err := h.decodeObject(r, ns)
	if err != nil {
		writeStatus(w, err)
		return
	}
	if u.GetName() == "" && u.GetGenerateName() == "" {
		writeStatus(w, apierrors.NewInvalid(schemaGK(h.res), "", field.ErrorList{
			field.Required(field.NewPath("metadata", "name"), "name or generateName is required"),
		}))
		return
	}
	u.SetUID(typesUID(h.server.opts.NewUID()))
	u.SetCreationTimestamp(metav1.NewTime(h.server.opts.Now()))
	u.SetResourceVersion("")
	obj, err := h.createWithName(r, u)
	if err != nil {
		writeStatus(w, err)
		return
	}
	writeRaw(w, http.StatusCreated, obj.Data)
}

// createWithName stores u, generating its name from generateName when it
// has none and retrying on a collision.
func (h *handler) createWithName(r *http.Request, u *unstructured.Unstructured) (raftstore.Object, error) {
	generate := u.GetName() == ""
	for attempt := 0; ; attempt++ {
		if generate {
			u.SetName(u.GetGenerateName() + utilrand.String(5))
		}
		if err := h.validateName(u.GetName()); err != nil {
			return raftstore.Object{}, err
		}
		data, err := u.MarshalJSON()
		if err != nil {
			return raftstore.Object{}, apierrors.NewInternalError(err)
		}
		obj, err := h.store().Create(r.Context(), h.res.key(u.GetNamespace(), u.GetName()), data)
		if generate && raftstore.IsAlreadyExists(err) && attempt < maxGenerateNameAttempts {
			continue
		}
		if generate && raftstore.IsAlreadyExists(err) {
			return obj, apierrors.NewGenerateNameConflict(h.res.GroupResource(), u.GetName(), 1)
		}
		if err != nil {
			return obj, storeError(err, h.res, u.GetName())
		}
		return obj, nil
	}
}

// update replaces an object. With a resourceVersion in the body it is a
// compare-and-swap (409 when stale); without, it is unconditional: the
// server reads the current version and retries on a concurrent change.
func (h *handler) update(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	u, err := h.decodeObject(r, ns)
	if err != nil {
		writeStatus(w, err)
		return
	}
	if u.GetName() != name {
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), name)))
		return
	}
	want, err := bodyRevision(u)
	if err != nil {
		writeStatus(w, err)
		return
	}
	obj, err := h.updateLoop(r, u, want)
	if err != nil {
		writeStatus(w, err)
		return
	}
	writeRaw(w, http.StatusOK, obj.Data)
}

func bodyRevision(u *unstructured.Unstructured) (uint64, error) {
	rv := u.GetResourceVersion()
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest("invalid resourceVersion: " + rv)
	}
	return n, nil
}

func (h *handler) updateLoop(r *http.Request, u *unstructured.Unstructured, want uint64) (raftstore.Object, error) {
	key := h.res.key(u.GetNamespace(), u.GetName())
	// A lagging node must not answer 409 for a version the client saw
	// elsewhere: read at least as new as the version the body names.
	read := raftstore.ReadOptions{Consistency: raftstore.Any}
	if want != 0 {
		read = raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: want}
	}
	for {
		cur, err := h.store().Get(r.Context(), key, read)
		if err != nil {
			return cur, storeError(err, h.res, u.GetName())
		}
		if want != 0 && want != cur.Rev {
			return cur, apierrors.NewConflict(h.res.GroupResource(), u.GetName(), fmt.Errorf("%s", conflictMessage))
		}
		data, err := carryOver(u, cur.Data)
		if err != nil {
			return cur, err
		}
		obj, err := h.store().Update(r.Context(), key, data, raftstore.Preconditions{ResourceVersion: cur.Rev})
		if raftstore.IsConflict(err) && want == 0 {
			read = raftstore.ReadOptions{Consistency: raftstore.MostRecent}
			continue
		}
		if err != nil {
			return obj, storeError(err, h.res, u.GetName())
		}
		return obj, nil
	}
}

// carryOver copies the server-owned metadata of the stored object into
// the new one.
func carryOver(u *unstructured.Unstructured, stored []byte) ([]byte, error) {
	var old unstructured.Unstructured
	if err := json.Unmarshal(stored, &old.Object); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	u.SetUID(old.GetUID())
	u.SetCreationTimestamp(old.GetCreationTimestamp())
	u.SetResourceVersion("")
	return u.MarshalJSON()
}
