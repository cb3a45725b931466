package accessreview

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/request"
)

// selfSubjectReview answers a SelfSubjectReview with the request's user,
// impersonation applied, and the time of the answer; the review's own
// content is ignored, as kube-apiserver ignores it.
func selfSubjectReview(ctx context.Context, _ string, obj runtime.Object) (runtime.Object, error) {
	if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %#v", obj))
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, errNoUser()
	}
	extra := u.GetExtra()
	info := authenticationv1.UserInfo{
		Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(),
		Extra: make(map[string]authenticationv1.ExtraValue, len(extra)),
	}
	for k, v := range extra {
		info.Extra[k] = v
	}
	return &authenticationv1.SelfSubjectReview{
		TypeMeta:   metav1.TypeMeta{APIVersion: authenticationv1.SchemeGroupVersion.String(), Kind: "SelfSubjectReview"},
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now())},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: info},
	}, nil
}

// errNoUser is kube-apiserver's answer to a self review of a request
// that carries no user.
func errNoUser() error { return apierrors.NewBadRequest("no user present on request") }
