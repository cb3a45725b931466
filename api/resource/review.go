package resource

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
)

// ReviewFunc computes the answer to a review request: obj is the decoded
// request body (in the resource's Go type), ns the request's namespace
// ("" for a cluster-scoped resource). It returns the object sent back
// with 201, or an error (an apimachinery StatusError for a client's
// mistake). The user is in ctx (api/request.UserFrom). Nothing is stored.
type ReviewFunc func(ctx context.Context, ns string, obj runtime.Object) (runtime.Object, error)

// SubresourceCreateFunc serves POST on a subresource of one object (a
// service account's token): obj is the decoded body in the type of
// Subresource.Body, ns and name the parent object's.
type SubresourceCreateFunc func(ctx context.Context, ns, name string, obj runtime.Object) (runtime.Object, error)
