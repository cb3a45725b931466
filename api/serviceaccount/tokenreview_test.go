package serviceaccount

import (
	"context"
	"net/http"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
)

// withAuthenticated is a node's chain in miniature: the service-account
// authenticator with system:authenticated added, as kube's group adder.
type withAuthenticated struct{ TokenAuthenticator }

func (w withAuthenticated) AuthenticateToken(ctx context.Context, token string) (user.Info, []string, bool, error) {
	u, auds, ok, err := w.TokenAuthenticator.AuthenticateToken(ctx, token)
	if !ok {
		return u, auds, ok, err
	}
	return &user.DefaultInfo{Name: u.GetName(), UID: u.GetUID(), Groups: append(u.GetGroups(), user.AllAuthenticated), Extra: u.GetExtra()}, auds, ok, err
}

func review(t *testing.T, f *fixture, spec authenticationv1.TokenReviewSpec) (*authenticationv1.TokenReview, error) {
	t.Helper()
	res := TokenReviewResource(withAuthenticated{f.auth}, f.tokens.APIAudiences())
	out, err := res.Review(t.Context(), "", &authenticationv1.TokenReview{Spec: spec})
	if err != nil {
		return nil, err
	}
	return out.(*authenticationv1.TokenReview), nil
}

func TestTokenReviewOfAValidToken(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	token := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
	tr, err := review(t, f, authenticationv1.TokenReviewSpec{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	u := tr.Status.User
	if !tr.Status.Authenticated || tr.Status.Error != "" || u.Username != "system:serviceaccount:ns1:builder" || u.UID != "uid-1" {
		t.Fatalf("status = %+v", tr.Status)
	}
	if !slices.Equal(u.Groups, []string{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"}) {
		t.Errorf("groups = %v", u.Groups)
	}
	if len(u.Extra["authentication.kubernetes.io/credential-id"]) != 1 || !slices.Equal(tr.Status.Audiences, []string{testIssuer}) {
		t.Errorf("extra %v audiences %v", u.Extra, tr.Status.Audiences)
	}
	if tr.Kind != "TokenReview" || tr.Spec.Token != token {
		t.Errorf("answer %s with spec %+v, want the review sent back", tr.Kind, tr.Spec)
	}
}

// TestTokenReviewAudiences: spec.audiences replace the API's; the token
// must be good for one of them, and status.audiences says which.
func TestTokenReviewAudiences(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	vault := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{Audiences: []string{"vault", "other"}})

	tr, err := review(t, f, authenticationv1.TokenReviewSpec{Token: vault, Audiences: []string{"vault", "consul"}})
	if err != nil || !tr.Status.Authenticated || !slices.Equal(tr.Status.Audiences, []string{"vault"}) {
		t.Fatalf("review for vault = %+v, %v; want authenticated for [vault]", tr, err)
	}
	tr, err = review(t, f, authenticationv1.TokenReviewSpec{Token: vault})
	if err != nil || tr.Status.Authenticated || tr.Status.Error != `token audiences ["vault" "other"] is invalid for the target audiences ["`+testIssuer+`"]` {
		t.Fatalf("review for the API = %+v, %v; want refused with kube's audience error", tr.Status, err)
	}
}

func TestTokenReviewOfAnUnknownToken(t *testing.T) {
	f := newFixture(t)
	tr, err := review(t, f, authenticationv1.TokenReviewSpec{Token: "not-a-token"})
	if err != nil || tr.Status.Authenticated || tr.Status.Error != "invalid bearer token" || tr.Status.User.Username != "" {
		t.Fatalf("review = %+v, %v; want unauthenticated, invalid bearer token", tr.Status, err)
	}
}

func TestTokenReviewWithoutAToken(t *testing.T) {
	f := newFixture(t)
	_, err := review(t, f, authenticationv1.TokenReviewSpec{})
	if !apierrors.IsBadRequest(err) || err.Error() != "token is required for TokenReview in authentication" {
		t.Fatalf("review = %v, want 400 token is required", err)
	}
}

// audienceLiar accepts every token, for audiences nobody asked for.
type audienceLiar struct{}

func (audienceLiar) AuthenticateToken(context.Context, string) (user.Info, []string, bool, error) {
	return &user.DefaultInfo{Name: "x"}, []string{"elsewhere"}, true, nil
}

func TestTokenReviewRefusesAnAuthenticatorThatIgnoresAudiences(t *testing.T) {
	res := TokenReviewResource(audienceLiar{}, []string{testIssuer})
	_, err := res.Review(t.Context(), "", &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "t"}})
	if se, ok := err.(*apierrors.StatusError); !ok || se.Status().Code != http.StatusInternalServerError {
		t.Fatalf("review = %v, want kube's 500 error validating audiences", err)
	}
}
