package accessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// selfSubjectAccessReview answers whether the request's user may do what
// spec's attributes say (kubectl auth can-i).
func selfSubjectAccessReview(authz authorizer.UnconditionalAuthorizer) resource.ReviewFunc {
	return func(ctx context.Context, ns string, obj runtime.Object) (runtime.Object, error) {
		sar, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %#v", obj))
		}
		if err := matchNamespace(&sar.ObjectMeta, ns); err != nil {
			return nil, err
		}
		if errs := validateSelfSubjectAccessReview(sar); len(errs) > 0 {
			return nil, invalid(errs)
		}
		u, ok := request.UserFrom(ctx)
		if !ok {
			return nil, errNoUser()
		}
		sar.Status = decide(ctx, authz, attributes(u, sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
		sar.TypeMeta = metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SelfSubjectAccessReview"}
		return sar, nil
	}
}
