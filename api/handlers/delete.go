package handlers

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// Delete serves DELETE of one object: a success Status when it is gone,
// the object when finalizers keep it.
func Delete(s *Scope) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := pathVars(r)
		out, err := negotiation.Negotiate(r, s.Resource)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		opts, err := s.deleteOptions(r)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		d, err := s.Store.Delete(r.Context(), ns, name, opts)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		if !d.Gone {
			s.encoder().writeObject(w, out, keptStatus(opts), d.Data)
			return
		}
		s.encoder().writeDeleted(w, name, d.Data)
	}
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
func (e encoder) writeDeleted(w http.ResponseWriter, name string, data []byte) {
	var uid string
	if obj, err := codec.DecodeStored(e.res, data); err == nil {
		uid = string(codec.Accessor(obj).GetUID())
	}
	WriteStatusObject(w, http.StatusOK, &metav1.Status{
		Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name: name, Group: e.res.Group, Kind: e.res.Plural, UID: types.UID(uid),
		},
	})
}
