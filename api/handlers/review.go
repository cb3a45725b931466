package handlers

import (
	"context"
	"encoding/json"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// Review serves POST on a review resource's collection (an access review,
// TokenReview): the body decoded, the review computed, 201 with the
// answer. Nothing is stored; dryRun changes nothing.
func Review(s *Scope) http.HandlerFunc {
	review := s.Resource.Review
	return s.serveCompute(func(ctx context.Context, ns, _ string, obj runtime.Object) (runtime.Object, error) {
		return review(ctx, ns, obj)
	})
}

// SubresourceCreate serves POST on a subresource whose Create computes
// the answer from the body (a service account's TokenRequest). s is the
// scope of the subresource's Body type.
func SubresourceCreate(s *Scope, create resource.SubresourceCreateFunc) http.HandlerFunc {
	return s.serveCompute(create)
}

// serveCompute decodes the request body as s's resource, calls compute
// and answers 201 with its result in the negotiated encoding.
func (s *Scope) serveCompute(compute resource.SubresourceCreateFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns, name := pathVars(r)
		wr, ok := s.readWriteRequest(w, r, "CreateOptions")
		if !ok {
			return
		}
		obj, err := s.decodeBody(r, &wr)
		ctx, raised := request.WithWarnings(r.Context())
		var data []byte
		if err == nil {
			var out runtime.Object
			if out, err = compute(ctx, ns, name, obj); err == nil {
				data, err = json.Marshal(out)
			}
		}
		writeWarnings(w, append(wr.warnings, raised.List()...))
		if err != nil {
			WriteStatus(w, err)
			return
		}
		s.encoder().writeObject(w, wr.out, http.StatusCreated, data)
	}
}
