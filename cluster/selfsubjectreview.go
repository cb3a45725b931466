package cluster

import (
	"io"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/handlers"
)

// SelfSubjectReviewPath creates a SelfSubjectReview (kubectl auth whoami):
// the server says who it takes the caller for.
const SelfSubjectReviewPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews"

// selfSubjectReviewHandler answers POST SelfSubjectReviewPath with the
// request's user, after impersonation, as kube-apiserver does (201, the
// review with status.userInfo; nothing is stored). The request body is
// read but not needed: a review has no input.
func selfSubjectReviewHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			handlers.WriteStatus(w, apierrors.NewMethodNotSupported(schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}, r.Method))
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		u, _ := UserFrom(r.Context())
		review := authenticationv1.SelfSubjectReview{
			TypeMeta:   metav1.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"},
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now().UTC().Truncate(time.Second))},
			Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: userInfo(u)},
		}
		handlers.WriteJSON(w, http.StatusCreated, review)
	})
}

// userInfo is u as the authentication API describes a user.
func userInfo(u User) authenticationv1.UserInfo {
	info := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if len(u.Extra) > 0 {
		info.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range u.Extra {
			info.Extra[k] = v
		}
	}
	return info
}
