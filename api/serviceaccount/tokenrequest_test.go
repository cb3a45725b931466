package serviceaccount

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/request"
)

func TestTokenRequestDefaultsAndAnswers(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	tr, err := f.issue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Kind != "TokenRequest" || tr.APIVersion != "authentication.k8s.io/v1" {
		t.Errorf("type = %s %s", tr.APIVersion, tr.Kind)
	}
	if tr.Name != "builder" || tr.Namespace != "ns1" || tr.UID != "uid-1" || !tr.CreationTimestamp.Time.Equal(f.clock.Now()) {
		t.Errorf("metadata = %+v, want the service account's name, namespace and uid, created now", tr.ObjectMeta)
	}
	if *tr.Spec.ExpirationSeconds != 3600 || !slices.Equal(tr.Spec.Audiences, []string{testIssuer}) {
		t.Errorf("spec = %+v, want an hour for the API's audiences", tr.Spec)
	}
	if !tr.Status.ExpirationTimestamp.Time.Equal(f.clock.Now().Add(time.Hour)) || tr.Status.Token == "" {
		t.Errorf("status = %+v", tr.Status)
	}
}

func TestTokenRequestCapsTheLifetime(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxExpiration = 2 * time.Hour })
	f.getter.addSA("ns1", "builder", "uid-1")
	ctx, warnings := request.WithWarnings(context.Background())
	out, err := TokenRequestFunc(f.tokens, f.getter)(ctx, "ns1", "builder",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr[int64](86400)}})
	if err != nil {
		t.Fatal(err)
	}
	tr := out.(*authenticationv1.TokenRequest)
	if *tr.Spec.ExpirationSeconds != 7200 || decodeSegment(t, tr.Status.Token, 1)["exp"] != float64(f.clock.Now().Add(2*time.Hour).Unix()) {
		t.Fatalf("expirationSeconds %d, exp %v: want the 2h maximum", *tr.Spec.ExpirationSeconds, decodeSegment(t, tr.Status.Token, 1)["exp"])
	}
	// kube-apiserver's warning, which kubectl prints.
	if got, want := warnings.List(), []string{"requested expiration of 86400 seconds shortened to 7200 seconds"}; !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestTokenRequestRefuses: kube's status code and message for each bad
// request.
func TestTokenRequestRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		sa   string
		req  authenticationv1.TokenRequest
		code int32
		msg  string
	}{
		{"missing service account", "ghost", authenticationv1.TokenRequest{}, http.StatusNotFound, `serviceaccounts "ghost" not found`},
		{"too short", "builder", authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr[int64](599)}},
			http.StatusUnprocessableEntity, `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`},
		{"too long", "builder", authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr[int64](1<<32 + 1)}},
			http.StatusUnprocessableEntity, "may not specify a duration larger than 2^32 seconds"},
		{"other name", "builder", authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Name: "other"}},
			http.StatusUnprocessableEntity, `TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified`},
		{"other uid", "builder", authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{UID: "uid-0"}},
			http.StatusConflict, "the UID in the token request (uid-0) does not match the UID of the service account (uid-1)"},
		{"bound to a pod", "builder", authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: "web"}}},
			http.StatusNotFound, `pods "web" not found`},
		{"bound to a deployment", "builder", authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}},
			http.StatusBadRequest, "cannot bind token to object of type apps/v1, Kind=Deployment"},
		{"bound to a missing secret", "builder", authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Secret", Name: "s"}}},
			http.StatusNotFound, `secrets "s" not found`},
		{"attestations without a webhook", "builder", authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			Attestations: map[string]authenticationv1.AttestationValue{"admissionReviewAPIGroups": {"*"}}}},
			http.StatusUnprocessableEntity, "attestations may only be specified with a webhook bound object reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.getter.addSA("ns1", "builder", "uid-1")
			out, err := TokenRequestFunc(f.tokens, f.getter)(t.Context(), "ns1", tc.sa, &tc.req)
			var se *apierrors.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("create = %v, %v; want a Status error", out, err)
			}
			status := se.Status()
			if status.Code != tc.code || !strings.Contains(status.Message, tc.msg) {
				t.Fatalf("Status %d %q, want %d %q", status.Code, status.Message, tc.code, tc.msg)
			}
		})
	}
}

// TestTokenBoundToASecretDiesWithIt: a token bound to a secret carries
// its name and uid and stops authenticating once the secret is gone.
func TestTokenBoundToASecretDiesWithIt(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	f.getter.put("secrets", "ns1", "s", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "s", UID: "secret-uid"}})
	token := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "secret-uid"}})
	secret, _ := decodeSegment(t, token, 1)["kubernetes.io"].(map[string]any)["secret"].(map[string]any)
	if secret["name"] != "s" || secret["uid"] != "secret-uid" {
		t.Fatalf("secret claim = %v", secret)
	}
	if _, _, ok, err := f.auth.AuthenticateToken(t.Context(), token); !ok {
		t.Fatalf("with the secret: %v", err)
	}
	f.getter.remove("secrets", "ns1", "s")
	if _, _, ok, err := f.auth.AuthenticateToken(t.Context(), token); ok || err == nil || err.Error() != "service account token has been invalidated" {
		t.Fatalf("without the secret: ok %v err %v, want invalidated", ok, err)
	}
}
