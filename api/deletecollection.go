package api

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/raftstore"
)

// deleteCollection serves DELETE on a collection: every object matching
// the selectors is deleted as a single delete would, and the list of the
// objects deleted (or marked for deletion) is returned.
func (h *handler) deleteCollection(w http.ResponseWriter, r *http.Request) {
	ns, _ := pathVars(r)
	out, err := negotiate(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	q, err := parseQuery(r, h.res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	opts, err := h.deleteOptions(r)
	if err != nil {
		writeStatus(w, err)
		return
	}
	list, err := h.store().List(r.Context(), h.res.Prefix(ns), raftstore.ListOptions{
		ReadOptions: raftstore.ReadOptions{Consistency: raftstore.MostRecent}, Predicate: q.predicate(h.res),
	})
	if err != nil {
		writeStatus(w, storeError(err, h.res, ""))
		return
	}
	result := &raftstore.ListResult{Revision: list.Revision}
	for _, o := range list.Items {
		obj, err := decodeStored(h.res, o.Data)
		if err != nil {
			writeStatus(w, err)
			return
		}
		m := accessor(obj)
		d, err := h.deleteObject(r.Context(), m.GetNamespace(), m.GetName(), opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			writeStatus(w, err)
			return
		}
		result.Items = append(result.Items, raftstore.Object{Data: d.data})
		if opts.Preconditions != nil {
			opts = &metav1.DeleteOptions{DryRun: opts.DryRun}
		}
	}
	h.writeList(w, out, result)
}
