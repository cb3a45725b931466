package accessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/resource"
)

// subjectAccessReview answers whether spec's user may do what spec's
// attributes say.
func subjectAccessReview(authz authorizer.UnconditionalAuthorizer) resource.ReviewFunc {
	return func(ctx context.Context, ns string, obj runtime.Object) (runtime.Object, error) {
		sar, ok := obj.(*authorizationv1.SubjectAccessReview)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %#v", obj))
		}
		if err := matchNamespace(&sar.ObjectMeta, ns); err != nil {
			return nil, err
		}
		if errs := validateSubjectAccessReview(sar); len(errs) > 0 {
			return nil, invalid(errs)
		}
		a := attributes(specUser(&sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
		sar.Status = decide(ctx, authz, a)
		sar.TypeMeta = metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SubjectAccessReview"}
		return sar, nil
	}
}

// localSubjectAccessReview answers a SubjectAccessReview confined to the
// request's namespace.
func localSubjectAccessReview(authz authorizer.UnconditionalAuthorizer) resource.ReviewFunc {
	return func(ctx context.Context, ns string, obj runtime.Object) (runtime.Object, error) {
		sar, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
		if !ok {
			// kube-apiserver's message, its typo included.
			return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocaLocalSubjectAccessReview: %#v", obj))
		}
		if err := matchNamespace(&sar.ObjectMeta, ns); err != nil {
			return nil, err
		}
		if errs := validateLocalSubjectAccessReview(sar); len(errs) > 0 {
			return nil, invalid(errs)
		}
		if ns == "" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", ns))
		}
		if ns != sar.Namespace {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", ns))
		}
		a := attributes(specUser(&sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
		sar.Status = decide(ctx, authz, a)
		sar.TypeMeta = metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "LocalSubjectAccessReview"}
		return sar, nil
	}
}
