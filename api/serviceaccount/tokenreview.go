package serviceaccount

import (
	"context"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/raftapi/raftapi/api/resource"
)

// errInvalidToken is kube's bearer-token authenticator's answer when no
// token authenticator recognised the token.
var errInvalidToken = errors.New("invalid bearer token")

// errAudiences is kube's answer when an authenticator accepted a token
// for none of the audiences asked for.
var errAudiences = apierrors.NewInternalError(errors.New("error validating audiences"))

// TokenReviewResource describes authentication.k8s.io/v1 tokenreviews:
// a create-only review that authenticates spec.token with auth (the
// node's token authenticators) for spec.audiences, or apiAudiences when
// it names none, and answers with status.authenticated, the user, the
// audiences the token is good for and the error that refused it.
func TokenReviewResource(auth TokenAuthenticator, apiAudiences []string) *resource.Resource {
	return &resource.Resource{
		Group:    authenticationv1.GroupName,
		Version:  "v1",
		Kind:     "TokenReview",
		Plural:   "tokenreviews",
		Singular: "tokenreview",
		Verbs:    metav1.Verbs{"create"},
		New:      func() runtime.Object { return &authenticationv1.TokenReview{} },
		Review: func(ctx context.Context, ns string, obj runtime.Object) (runtime.Object, error) {
			return reviewToken(ctx, auth, apiAudiences, ns, obj)
		},
	}
}

// reviewToken answers one TokenReview as kube-apiserver's TokenReview
// REST does.
func reviewToken(ctx context.Context, auth TokenAuthenticator, apiAudiences []string, ns string, obj runtime.Object) (runtime.Object, error) {
	in, ok := obj.(*authenticationv1.TokenReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenReview: %T", obj))
	}
	if ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	if in.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	tr := in.DeepCopy()
	tr.TypeMeta = metav1.TypeMeta{APIVersion: authenticationv1.SchemeGroupVersion.String(), Kind: "TokenReview"}
	auds := tr.Spec.Audiences
	if len(auds) == 0 {
		auds = apiAudiences
	}
	if len(auds) > 0 {
		ctx = authenticator.WithAudiences(ctx, auds)
	}
	u, got, ok, err := auth.AuthenticateToken(ctx, tr.Spec.Token)
	if !ok && err == nil {
		err = errInvalidToken
	}
	tr.Status = authenticationv1.TokenReviewStatus{Authenticated: ok}
	if err != nil {
		tr.Status.Error = err.Error()
	}
	if !ok || u == nil {
		return tr, nil
	}
	if len(auds) > 0 && len(authenticator.Audiences(auds).Intersect(got)) == 0 {
		return nil, errAudiences
	}
	tr.Status.User = userInfo(u)
	tr.Status.Audiences = got
	return tr, nil
}

// userInfo is u as a TokenReview reports it.
func userInfo(u user.Info) authenticationv1.UserInfo {
	out := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	for k, v := range u.GetExtra() {
		if out.Extra == nil {
			out.Extra = map[string]authenticationv1.ExtraValue{}
		}
		out.Extra[k] = authenticationv1.ExtraValue(v)
	}
	return out
}
