package api

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/raftstore"
)

// handler serves the verbs of one resource.
type handler struct {
	server *Server
	res    *Resource
}

func (h *handler) store() Storage { return h.server.store }

func pathVars(r *http.Request) (ns, name string) {
	v := mux.Vars(r)
	return v["namespace"], v["name"]
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	q, err := parseQuery(r)
	if err != nil {
		writeStatus(w, err)
		return
	}
	obj, err := h.store().Get(r.Context(), h.res.key(ns, name), q.getOptions())
	if err != nil {
		writeStatus(w, storeError(err, h.res, name))
		return
	}
	writeRaw(w, http.StatusOK, obj.Data)
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	ns, _ := pathVars(r)
	q, err := parseQuery(r)
	if err != nil {
		writeStatus(w, err)
		return
	}
	if q.watch {
		h.watch(w, r, q, ns)
		return
	}
	ro, err := q.listOptions()
	if err != nil {
		writeStatus(w, err)
		return
	}
	out, err := h.store().List(r.Context(), h.res.prefix(ns), raftstore.ListOptions{
		ReadOptions: ro, Limit: q.limit, Continue: q.cont, Predicate: q.predicate(),
	})
	if err != nil {
		writeStatus(w, storeError(err, h.res, ""))
		return
	}
	writeJSON(w, http.StatusOK, h.listObject(out))
}

// list is the wire form of a XxxList with raw items.
type list struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   metav1.ListMeta   `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

func (h *handler) listObject(out *raftstore.ListResult) *list {
	l := &list{Kind: h.res.ListKind, APIVersion: h.res.APIVersion(), Items: make([]json.RawMessage, len(out.Items))}
	l.Metadata.ResourceVersion = strconv.FormatUint(out.Revision, 10)
	l.Metadata.Continue = out.Continue
	l.Metadata.RemainingItemCount = out.RemainingItemCount
	for i, o := range out.Items {
		l.Items[i] = o.Data
	}
	return l
}

func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	ns, name := pathVars(r)
	pre, err := deletePreconditions(r)
	if err != nil {
		writeStatus(w, err)
		return
	}
	obj, err := h.store().Delete(r.Context(), h.res.key(ns, name), pre)
	if err != nil {
		writeStatus(w, storeError(err, h.res, name))
		return
	}
	m, _ := decodeMeta(obj.Data)
	writeJSON(w, http.StatusOK, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name: name, Group: h.res.Group, Kind: h.res.Plural, UID: typesUID(m.Metadata.UID),
		},
	})
}

// deletePreconditions reads DeleteOptions.preconditions from a JSON body.
func deletePreconditions(r *http.Request) (raftstore.Preconditions, error) {
	var pre raftstore.Preconditions
	body, err := readBody(r)
	if err != nil || len(body) == 0 {
		return pre, err
	}
	var opts metav1.DeleteOptions
	if err := json.Unmarshal(body, &opts); err != nil {
		return pre, apierrors.NewBadRequest("invalid DeleteOptions: " + err.Error())
	}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil {
			pre.UID = string(*p.UID)
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != "" {
			rv, err := strconv.ParseUint(*p.ResourceVersion, 10, 64)
			if err != nil {
				return pre, apierrors.NewBadRequest("invalid resourceVersion precondition: " + *p.ResourceVersion)
			}
			pre.ResourceVersion = rv
		}
	}
	return pre, nil
}

func writeRaw(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
