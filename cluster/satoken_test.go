package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/raftapi/raftapi/pki"
)

// adminRESTConfig is the client-go configuration of n's admin
// kubeconfig.
func adminRESTConfig(t *testing.T, n *Node) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", n.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// bearerClientset is client-go against n authenticating with token.
func bearerClientset(t *testing.T, n *Node, token string) kubernetes.Interface {
	t.Helper()
	admin := adminRESTConfig(t, n)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: admin.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// authenticatedAs reports whether err is what a request of user gets
// from the API: success, or a 403 naming the user (authorization is not
// what this test is about), never a 401.
func authenticatedAs(err error, user string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), fmt.Sprintf("User %q", user)):
		return nil
	}
	return fmt.Errorf("not authenticated as %s: %v", user, err)
}

// TestServiceAccountTokens drives a node with client-go as kubectl
// create token does: a new namespace gets its default service account
// and the root CA (which verifies the API); a token of a service account
// authenticates as it, TokenReview says so, and the token dies with the
// account.
func TestServiceAccountTokens(t *testing.T) {
	n := startSingleNode(t)
	admin, err := kubernetes.NewForConfig(adminRESTConfig(t, n))
	if err != nil {
		t.Fatal(err)
	}
	ctx := callContext(t)
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	checkNamespaceDefaults(t, n, admin)

	sa, err := admin.CoreV1().ServiceAccounts("team").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("team").CreateToken(ctx, "builder",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrTo[int64](1200)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create token: %v", err)
	}
	if tr.Status.Token == "" || time.Until(tr.Status.ExpirationTimestamp.Time) > 20*time.Minute || time.Until(tr.Status.ExpirationTimestamp.Time) < 19*time.Minute {
		t.Fatalf("token request status = %+v, want a token for 20 minutes", tr.Status)
	}
	const user = "system:serviceaccount:team:builder"
	_, err = bearerClientset(t, n, tr.Status.Token).CoreV1().ConfigMaps("team").List(ctx, metav1.ListOptions{})
	if err := authenticatedAs(err, user); err != nil {
		t.Fatal(err)
	}

	review, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tr.Status.Token}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := review.Status
	if !st.Authenticated || st.User.Username != user || st.User.UID != string(sa.UID) ||
		!slices.Equal(st.User.Groups, []string{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}) ||
		!slices.Equal(st.Audiences, []string{DefaultServiceAccountIssuer}) {
		t.Errorf("TokenReview = %+v", st)
	}

	if _, err := admin.CoreV1().ServiceAccounts("team").CreateToken(ctx, "ghost", &authenticationv1.TokenRequest{}, metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("token for a missing service account: %v, want 404", err)
	}
	if err := admin.CoreV1().ServiceAccounts("team").Delete(ctx, "builder", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = bearerClientset(t, n, tr.Status.Token).CoreV1().ConfigMaps("team").List(ctx, metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Fatalf("the token of a deleted service account: %v, want 401", err)
	}
}

// checkNamespaceDefaults waits for the default service account and the
// root CA of namespace team, and checks that the CA verifies the API.
func checkNamespaceDefaults(t *testing.T, n *Node, admin kubernetes.Interface) {
	t.Helper()
	var bundle string
	pollUntil(t, "default service account and root CA of team", func() (bool, string) {
		_, err := admin.CoreV1().ServiceAccounts("team").Get(callContext(t), "default", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		cm, err := admin.CoreV1().ConfigMaps("team").Get(callContext(t), "kube-root-ca.crt", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		bundle = cm.Data["ca.crt"]
		return true, ""
	})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(bundle)) {
		t.Fatalf("kube-root-ca.crt holds no certificate: %q", bundle)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	resp, err := c.Get(baseURL(n) + "/livez")
	if err != nil {
		t.Fatalf("a client trusting kube-root-ca.crt: %v", err)
	}
	resp.Body.Close()
}

// TestServiceAccountIssuerDiscovery: the node serves kube's OpenID
// configuration of its issuer (the key set's address its own, as
// kube-apiserver's) and the key set that verifies its tokens.
func TestServiceAccountIssuerDiscovery(t *testing.T) {
	n := startSingleNode(t)
	code, body := httpDo(t, n, http.MethodGet, "/.well-known/openid-configuration", "")
	want := `{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://` + n.APIAddr() + `/openid/v1/jwks",` +
		`"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}`
	if code != http.StatusOK || body != want {
		t.Fatalf("openid-configuration: %d %s", code, body)
	}
	code, body = httpDo(t, n, http.MethodGet, "/openid/v1/jwks", "")
	var set struct {
		Keys []struct{ Kty, Kid, Alg, Use, Crv string }
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &set) != nil || len(set.Keys) != 1 {
		t.Fatalf("jwks: %d %s", code, body)
	}
	if k := set.Keys[0]; k.Kty != "EC" || k.Crv != "P-256" || k.Alg != "ES256" || k.Use != "sig" || k.Kid == "" {
		t.Errorf("key = %+v", k)
	}
}

// TestTokenChain: the token file comes first and knows no audiences
// (good for the API's only); service-account errors are reported.
func TestTokenChain(t *testing.T) {
	running := startSingleNode(t)
	n := &Node{cfg: running.cfg, api: &apiSecurity{tokens: staticTokens{"t-alice": {Name: "alice", UID: "uid-1"}}}, sa: running.sa}
	chain := tokenChain{n}
	u, auds, ok, err := chain.AuthenticateToken(t.Context(), "t-alice")
	if !ok || err != nil || u.GetName() != "alice" || auds != nil {
		t.Fatalf("file token = %v %v %v %v", u, auds, ok, err)
	}
	api := authenticator.WithAudiences(t.Context(), authenticator.Audiences{DefaultServiceAccountIssuer, "other"})
	if _, auds, ok, _ := chain.AuthenticateToken(api, "t-alice"); !ok || !slices.Equal(auds, []string{DefaultServiceAccountIssuer}) {
		t.Fatalf("file token for the API's audience: %v %v", ok, auds)
	}
	vault := authenticator.WithAudiences(t.Context(), authenticator.Audiences{"vault"})
	if _, _, ok, err := chain.AuthenticateToken(vault, "t-alice"); ok || err != nil {
		t.Fatalf("file token for audience vault: %v %v, want not recognised", ok, err)
	}
	forged := "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.AAAA"
	if _, _, ok, err := chain.AuthenticateToken(t.Context(), forged); ok || err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("forged service-account token: %v %v, want refused with a reason", ok, err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestServiceAccountTokenAcrossNodes: every node derives the same key, so
// a token a follower issued authenticates on every node at once, even a
// node that has not applied the service account yet.
func TestServiceAccountTokenAcrossNodes(t *testing.T) {
	names := []string{"a", "b", "c"}
	nodes := startStatic(t, names...)
	var follower *Node
	for _, name := range names {
		n := nodes[name]
		pollUntil(t, name+" ready", func() (bool, string) {
			code, body := httpDo(t, n, http.MethodGet, "/readyz?verbose", "")
			return code == http.StatusOK, body
		})
		if !n.Store().IsLeader() {
			follower = n
		}
	}
	admin, err := kubernetes.NewForConfig(adminRESTConfig(t, follower))
	if err != nil {
		t.Fatal(err)
	}
	ctx := callContext(t)
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "roamer"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "roamer", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create token on a follower: %v", err)
	}
	for _, name := range names {
		_, err := bearerClientset(t, nodes[name], tr.Status.Token).CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		if err := authenticatedAs(err, "system:serviceaccount:default:roamer"); err != nil {
			t.Errorf("node %s: %v", name, err)
		}
	}
}

// TestRootCABundleOfAServingCertificateFile: with --tls-cert-file the
// published bundle is the chain after the leaf.
func TestRootCABundleOfAServingCertificateFile(t *testing.T) {
	leaf, ca := selfSigned(t, "api"), selfSigned(t, "test-ca")
	path := filepath.Join(t.TempDir(), "serving.crt")
	if err := os.WriteFile(path, append(append([]byte(nil), leaf...), ca...), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := rootCABundle(Config{TLSCertFile: path}, &apiSecurity{tls: &tls.Config{}})
	if err != nil || string(got) != string(ca) {
		t.Fatalf("bundle = %q, %v; want the CA after the leaf", got, err)
	}
	if got, err := rootCABundle(Config{}, &apiSecurity{}); got != nil || err != nil {
		t.Fatalf("plain HTTP bundle = %q, %v; want none", got, err)
	}
}

// selfSigned is the PEM of a self-signed certificate named cn.
func selfSigned(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestServiceAccountFlags: --service-account-signing-key-file replaces
// the derived key (an RSA key signs RS256), --service-account-key-file
// adds verification keys, and bad files or settings stop the node with
// kube's messages.
func TestServiceAccountFlags(t *testing.T) {
	derived, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := &pki.Authority{ServiceAccountKey: derived}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	signing := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(signing, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), 0o600); err != nil {
		t.Fatal(err)
	}
	pub, _ := x509.MarshalPKIXPublicKey(&derived.PublicKey)
	verify := filepath.Join(dir, "old.pub")
	if err := os.WriteFile(verify, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600); err != nil {
		t.Fatal(err)
	}
	sa, err := newServiceAccounts(Config{ServiceAccountSigningKeyFile: signing, ServiceAccountKeyFiles: []string{verify}}, auth, &apiSecurity{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := sa.tokens.Discovery("127.0.0.1:6443")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/openid-configuration", nil))
	if !strings.Contains(rec.Body.String(), `"id_token_signing_alg_values_supported":["ES256","RS256"]`) {
		t.Errorf("configuration = %s, want the RSA signing key and the EC key of the key file", rec.Body)
	}

	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"signing key file is a public key", Config{ServiceAccountSigningKeyFile: verify}, "failed to parse service-account-issuer-key-file"},
		{"missing key file", Config{ServiceAccountKeyFiles: []string{filepath.Join(dir, "nope")}}, `failed to parse key file "` + filepath.Join(dir, "nope") + `"`},
		{"short max expiration", Config{ServiceAccountMaxTokenExpiration: time.Minute}, "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{"repeated issuer", Config{ServiceAccountIssuers: []string{"https://a", "https://a"}}, `service-account-issuer "https://a" is already specified`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := newServiceAccounts(tc.cfg, auth, &apiSecurity{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("newServiceAccounts = %v, want %q", err, tc.want)
			}
		})
	}
}
