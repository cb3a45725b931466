package handlers

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/registry"
)

// Create serves POST on a collection: 201 with the stored object.
func Create(s *Scope) http.HandlerFunc {
	create := func(ctx context.Context, ns, _ string, obj runtime.Object, opts registry.WriteOptions) (registry.Result, error) {
		return s.Store.Create(ctx, ns, obj, opts)
	}
	return s.serveBodyWrite("CreateOptions", http.StatusCreated, create)
}

// Update serves PUT of one object: 200 with the stored object.
func Update(s *Scope) http.HandlerFunc {
	return s.serveBodyWrite("UpdateOptions", http.StatusOK, s.Store.Update)
}

// bodyWrite is a registry verb that stores the object a request body
// holds.
type bodyWrite func(ctx context.Context, ns, name string, obj runtime.Object, opts registry.WriteOptions) (registry.Result, error)

// serveBodyWrite serves a write of the object in the request body: the
// write parameters (validated as optionsKind), the body decoded, the
// verb, then code with the stored object.
func (s *Scope) serveBodyWrite(optionsKind string, code int, write bodyWrite) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := pathVars(r)
		wr, ok := s.readWriteRequest(w, r, optionsKind)
		if !ok {
			return
		}
		obj, err := s.decodeBody(r, &wr)
		var res registry.Result
		if err == nil {
			res, err = write(r.Context(), ns, name, obj, wr.opts)
		}
		s.finishWrite(w, wr, code, res, err)
	}
}
