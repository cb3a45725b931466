package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// azIssuer is the --service-account-issuer of the ServiceAccount test.
const azIssuer = "https://raftapi.e2e.test"

// azSANamespace is the namespace the ServiceAccount test works in.
const azSANamespace = "sa-e2e"

// saScenario is one node with --service-account-issuer, the ServiceAccount
// robot in azSANamespace and a token kubectl create token made for it.
type saScenario struct {
	s      *azServer
	admin  kubernetes.Interface
	adminK *kubectl
	uid    string // robot's
	token  string
	jwt    azJWT
}

// TestSecurityServiceAccountTokens shows kube's ServiceAccount tokens
// end to end: every namespace gets its default ServiceAccount and the
// kube-root-ca.crt ConfigMap; kubectl create token mints a JWT with
// kube's claims, signed by a key the OIDC discovery documents publish;
// client-go authenticates with it as the account (403 without a binding,
// allowed with one); TokenReview checks it; a token for another audience
// is not accepted by the API; deleting the account invalidates its
// tokens (401), and recreating it does not bring them back.
func TestSecurityServiceAccountTokens(t *testing.T) {
	c := azStartCluster(t, 1, "--service-account-issuer", azIssuer)
	s := azServerOf(t, c.nodes[0])
	sc := &saScenario{s: s, admin: s.adminClientset(t), adminK: s.kubectl(t, "", azSANamespace)}
	mustNamespace(t, sc.admin, azSANamespace)

	t.Run("namespace-defaults", sc.namespaceDefaults)
	if out := sc.adminK.ok(t, "create", "serviceaccount", "robot"); out != "serviceaccount/robot created\n" {
		t.Fatalf("kubectl create serviceaccount robot: %q", out)
	}
	sa, err := sc.admin.CoreV1().ServiceAccounts(azSANamespace).Get(callCtx(t), "robot", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.uid = string(sa.UID)
	sc.token = strings.TrimSpace(sc.adminK.ok(t, "create", "token", "robot"))
	sc.jwt = azParseJWT(t, sc.token)

	t.Run("claims", sc.claims)
	t.Run("durations", sc.durations)
	t.Run("oidc-discovery", sc.oidcDiscovery)
	t.Run("rolebinding", sc.roleBinding)
	t.Run("whoami", sc.whoami)
	t.Run("tokenreview", sc.tokenReview)
	t.Run("audience", sc.audience)
	t.Run("deleted-serviceaccount", sc.deleted)
}

// namespaceDefaults: a new namespace gets the ServiceAccount default and
// the ConfigMap kube-root-ca.crt, whose CA verifies the API server.
func (sc *saScenario) namespaceDefaults(t *testing.T) {
	for _, ns := range []string{azSANamespace, "default", "kube-system"} {
		secEventually(t, 10*time.Second, "ServiceAccount default in "+ns, func() error {
			_, err := sc.admin.CoreV1().ServiceAccounts(ns).Get(callCtx(t), "default", metav1.GetOptions{})
			return err
		})
	}
	var bundle string
	secEventually(t, 10*time.Second, "ConfigMap kube-root-ca.crt in "+azSANamespace, func() error {
		cm, err := sc.admin.CoreV1().ConfigMaps(azSANamespace).Get(callCtx(t), "kube-root-ca.crt", metav1.GetOptions{})
		if err != nil {
			return err
		}
		bundle = cm.Data["ca.crt"]
		return nil
	})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(bundle)) {
		t.Fatalf("kube-root-ca.crt holds no PEM certificate: %q", bundle)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	if r, err := secDo(hc, http.MethodGet, sc.s.nd.url()+"/readyz"); err != nil || r.code != http.StatusOK {
		t.Errorf("a client trusting only kube-root-ca.crt reaches the API: %v %v", r.code, err)
	}
}

// claims: the token is an ES256 JWT with kube's claims: issuer, audience
// (the issuer by default), subject, an hour's validity, a JWT ID and the
// account's namespace, name and uid.
func (sc *saScenario) claims(t *testing.T) {
	j := sc.jwt
	if j.header.Alg != "ES256" || j.header.Kid == "" {
		t.Errorf("JWT header %+v, want alg ES256 and a kid", j.header)
	}
	c := j.claims
	now := time.Now().Unix()
	switch {
	case c.Iss != azIssuer:
		t.Errorf("iss %q, want %q", c.Iss, azIssuer)
	case !slices.Equal(c.Aud, []string{azIssuer}):
		t.Errorf("aud %q, want [%q]", c.Aud, azIssuer)
	case c.Sub != "system:serviceaccount:sa-e2e:robot":
		t.Errorf("sub %q", c.Sub)
	case c.Exp-c.Iat != 3600:
		t.Errorf("exp %d - iat %d: want kube's default of 3600 s", c.Exp, c.Iat)
	case c.Iat < now-120 || c.Iat > now+5 || c.Nbf > c.Iat:
		t.Errorf("iat %d, nbf %d; now %d", c.Iat, c.Nbf, now)
	case c.Jti == "":
		t.Errorf("no jti")
	case c.Kubernetes.Namespace != azSANamespace || c.Kubernetes.ServiceAccount.Name != "robot" || c.Kubernetes.ServiceAccount.UID != sc.uid:
		t.Errorf("kubernetes.io claim %+v, want namespace %s, robot, uid %s", c.Kubernetes, azSANamespace, sc.uid)
	}
}

// durations: --duration sets the token's life; less than ten minutes is
// refused with kube's message, as is a token for a missing account.
func (sc *saScenario) durations(t *testing.T) {
	c := azParseJWT(t, strings.TrimSpace(sc.adminK.ok(t, "create", "token", "robot", "--duration", "2h"))).claims
	if c.Exp-c.Iat != 7200 {
		t.Errorf("--duration 2h: exp - iat = %d", c.Exp-c.Iat)
	}
	azFails(t, sc.adminK, `error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes`,
		"create", "token", "robot", "--duration", "5m")
	azFails(t, sc.adminK, `error: failed to create token: serviceaccounts "nobody" not found`, "create", "token", "nobody")
}

// azOIDCConfig is kube's OpenID provider configuration document.
type azOIDCConfig struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// azJWK is one key of a JSON Web Key Set.
type azJWK struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// oidcDiscovery: the account (system:serviceaccounts may, anonymous may
// not, as kube's default policy says) reads the OpenID configuration and
// the key set; the token's signature verifies with the key its kid names.
func (sc *saScenario) oidcDiscovery(t *testing.T) {
	base := sc.s.nd.url()
	azWantStatus(t, "anonymous OIDC discovery", secMustDo(t, sc.s.http(t, ""), http.MethodGet, base+"/.well-known/openid-configuration"),
		http.StatusForbidden, "Forbidden", `forbidden: User "system:anonymous" cannot get path "/.well-known/openid-configuration"`)

	robot := sc.s.http(t, sc.token)
	r := secMustDo(t, robot, http.MethodGet, base+"/.well-known/openid-configuration")
	var cfg azOIDCConfig
	if r.code != http.StatusOK || !strings.HasPrefix(r.ctype, "application/json") || json.Unmarshal(r.body, &cfg) != nil {
		t.Fatalf("GET /.well-known/openid-configuration: HTTP %d %s %s", r.code, r.ctype, r.body)
	}
	if cfg.Issuer != azIssuer || !strings.HasPrefix(cfg.JWKSURI, "https://") || !strings.HasSuffix(cfg.JWKSURI, "/openid/v1/jwks") ||
		!slices.Equal(cfg.ResponseTypes, []string{"id_token"}) || !slices.Equal(cfg.SubjectTypes, []string{"public"}) ||
		!slices.Equal(cfg.SigningAlgs, []string{"ES256"}) {
		t.Errorf("OpenID configuration %+v", cfg)
	}

	r = secMustDo(t, robot, http.MethodGet, base+"/openid/v1/jwks")
	var set struct{ Keys []azJWK }
	if r.code != http.StatusOK || r.ctype != "application/jwk-set+json" || json.Unmarshal(r.body, &set) != nil {
		t.Fatalf("GET /openid/v1/jwks: HTTP %d %s %s", r.code, r.ctype, r.body)
	}
	i := slices.IndexFunc(set.Keys, func(k azJWK) bool { return k.Kid == sc.jwt.header.Kid })
	if i < 0 {
		t.Fatalf("no key %q in the key set %s", sc.jwt.header.Kid, r.body)
	}
	k := set.Keys[i]
	if k.Kty != "EC" || k.Crv != "P-256" || k.Alg != "ES256" || k.Use != "sig" {
		t.Errorf("key %+v, want an EC P-256 ES256 signing key", k)
	}
	if err := azVerifyES256(k, sc.jwt); err != nil {
		t.Errorf("the token's signature: %v", err)
	}
}

// roleBinding: client-go with the token is the account: refused (403)
// until a RoleBinding grants view, then allowed to read, not to write.
func (sc *saScenario) roleBinding(t *testing.T) {
	robot := sc.s.clientset(t, sc.token)
	const user = "system:serviceaccount:sa-e2e:robot"
	_, err := robot.CoreV1().ConfigMaps(azSANamespace).List(callCtx(t), metav1.ListOptions{})
	azForbidden(t, "robot without a binding lists configmaps", err,
		`configmaps is forbidden: User "`+user+`" cannot list resource "configmaps" in API group "" in the namespace "sa-e2e"`)
	out := sc.adminK.ok(t, "create", "rolebinding", "robot-view", "--clusterrole=view", "--serviceaccount=sa-e2e:robot")
	if out != "rolebinding.rbac.authorization.k8s.io/robot-view created\n" {
		t.Errorf("kubectl create rolebinding: %q", out)
	}
	secEventually(t, azPropagation, "robot lists configmaps with view", func() error {
		_, err := robot.CoreV1().ConfigMaps(azSANamespace).List(callCtx(t), metav1.ListOptions{})
		return err
	})
	_, err = robot.CoreV1().Secrets(azSANamespace).List(callCtx(t), metav1.ListOptions{})
	azForbidden(t, "robot (view) lists secrets", err,
		`secrets is forbidden: User "`+user+`" cannot list resource "secrets" in API group "" in the namespace "sa-e2e"`)
	_, err = robot.CoreV1().ServiceAccounts(azSANamespace).CreateToken(callCtx(t), "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	azForbidden(t, "robot (view) requests a token", err,
		`serviceaccounts "robot" is forbidden: User "`+user+`" cannot create resource "serviceaccounts/token" in API group "" in the namespace "sa-e2e"`)
}

// whoami: kubectl auth whoami with the token names the account, its uid,
// groups and the token's credential id.
func (sc *saScenario) whoami(t *testing.T) {
	out := sc.s.kubectl(t, sc.token, azSANamespace).ok(t, "auth", "whoami")
	wantLines(t, out,
		`Username\s+system:serviceaccount:sa-e2e:robot`,
		`UID\s+`+sc.uid,
		`Groups\s+\[system:serviceaccounts system:serviceaccounts:sa-e2e system:authenticated\]`,
		`Extra: authentication\.kubernetes\.io/credential-id\s+\[JTI=`+sc.jwt.claims.Jti+`\]`,
	)
}

// tokenReview: the admin's TokenReview authenticates the token as kube's
// does and not a made-up one; the account may not review tokens.
func (sc *saScenario) tokenReview(t *testing.T) {
	st := azReview(t, sc.admin, sc.token)
	want := []string{"system:serviceaccounts", "system:serviceaccounts:sa-e2e", "system:authenticated"}
	if !st.Authenticated || st.User.Username != "system:serviceaccount:sa-e2e:robot" || st.User.UID != sc.uid ||
		!slices.Equal(st.User.Groups, want) || !slices.Equal(st.Audiences, []string{azIssuer}) {
		t.Errorf("TokenReview of robot's token: %+v", st)
	}
	if st := azReview(t, sc.admin, "not-a-token"); st.Authenticated {
		t.Errorf("TokenReview of a made-up token: %+v, want unauthenticated", st)
	}
	_, err := sc.s.clientset(t, sc.token).AuthenticationV1().TokenReviews().Create(callCtx(t),
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: sc.token}}, metav1.CreateOptions{})
	azForbidden(t, "robot creates a TokenReview", err,
		`tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:sa-e2e:robot" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope`)
}

// azReview returns the status of a TokenReview of token, for audiences
// if any.
func azReview(t *testing.T, admin kubernetes.Interface, token string, audiences ...string) authenticationv1.TokenReviewStatus {
	t.Helper()
	tr, err := admin.AuthenticationV1().TokenReviews().Create(callCtx(t),
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: audiences}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenReview: %v", err)
	}
	return tr.Status
}

// audience: a token for another audience (kubectl create token
// --audience) names it, is refused by the API (401) and is authenticated
// by a TokenReview for that audience.
func (sc *saScenario) audience(t *testing.T) {
	vault := strings.TrimSpace(sc.adminK.ok(t, "create", "token", "robot", "--audience", "vault"))
	if aud := azParseJWT(t, vault).claims.Aud; !slices.Equal(aud, []string{"vault"}) {
		t.Errorf("--audience vault: aud %q", aud)
	}
	_, err := sc.s.clientset(t, vault).CoreV1().ConfigMaps(azSANamespace).List(callCtx(t), metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("the API with a token for audience vault: %v, want 401", err)
	}
	if st := azReview(t, sc.admin, vault, "vault"); !st.Authenticated || !slices.Equal(st.Audiences, []string{"vault"}) {
		t.Errorf("TokenReview for audience vault: %+v", st)
	}
	if st := azReview(t, sc.admin, vault); st.Authenticated {
		t.Errorf("TokenReview of a vault token for the API's audience: %+v, want unauthenticated", st)
	}
}

// deleted: deleting the account invalidates its token within a moment
// (401); a new account of the same name is another account, whose
// bindings the old token does not get back; its new tokens work.
func (sc *saScenario) deleted(t *testing.T) {
	robot := sc.s.clientset(t, sc.token)
	if out := sc.adminK.ok(t, "delete", "serviceaccount", "robot"); out != `serviceaccount "robot" deleted`+"\n" {
		t.Errorf("kubectl delete serviceaccount robot: %q", out)
	}
	start := time.Now()
	secEventually(t, azPropagation, "the deleted account's token refused", func() error {
		_, err := robot.CoreV1().ConfigMaps(azSANamespace).List(callCtx(t), metav1.ListOptions{})
		if apierrors.IsUnauthorized(err) {
			return nil
		}
		return fmt.Errorf("list configmaps: %v", err)
	})
	t.Logf("token refused %v after its ServiceAccount was deleted", time.Since(start).Round(time.Millisecond))
	if st := azReview(t, sc.admin, sc.token); st.Authenticated {
		t.Errorf("TokenReview of the deleted account's token: %+v", st)
	}

	sc.adminK.ok(t, "create", "serviceaccount", "robot")
	fresh := strings.TrimSpace(sc.adminK.ok(t, "create", "token", "robot"))
	secEventually(t, azPropagation, "a token of the new robot lists configmaps (robot-view still binds the name)", func() error {
		_, err := sc.s.clientset(t, fresh).CoreV1().ConfigMaps(azSANamespace).List(callCtx(t), metav1.ListOptions{})
		return err
	})
	_, err := robot.CoreV1().ConfigMaps(azSANamespace).List(callCtx(t), metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("the old token after robot was recreated: %v, want 401", err)
	}
	ssar, err := sc.s.clientset(t, fresh).AuthorizationV1().SelfSubjectAccessReviews().Create(callCtx(t), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: azSANamespace, Verb: "list", Resource: "configmaps"}},
	}, metav1.CreateOptions{})
	if err != nil || !ssar.Status.Allowed {
		t.Errorf("the new robot's SelfSubjectAccessReview: %+v %v", ssar, err)
	}
}

// azJWT is a compact JWS split into its parts.
type azJWT struct {
	header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	claims       azClaims
	signingInput string
	signature    []byte
}

// azClaims are the claims of a kube ServiceAccount token.
type azClaims struct {
	Iss        string     `json:"iss"`
	Sub        string     `json:"sub"`
	Aud        azAudience `json:"aud"`
	Exp        int64      `json:"exp"`
	Iat        int64      `json:"iat"`
	Nbf        int64      `json:"nbf"`
	Jti        string     `json:"jti"`
	Kubernetes struct {
		Namespace      string `json:"namespace"`
		ServiceAccount struct {
			Name string `json:"name"`
			UID  string `json:"uid"`
		} `json:"serviceaccount"`
	} `json:"kubernetes.io"`
}

// azAudience is a JWT aud claim: one string or an array of them.
type azAudience []string

// UnmarshalJSON implements json.Unmarshaler.
func (a *azAudience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = []string{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(a))
}

// azParseJWT splits and decodes a compact JWS; it does not verify it.
func azParseJWT(t *testing.T, token string) azJWT {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a compact JWS", token)
	}
	var j azJWT
	dec := func(i int, into any) {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatalf("JWT part %d: %v", i, err)
		}
		if into == nil {
			j.signature = b
			return
		}
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("JWT part %d %s: %v", i, b, err)
		}
	}
	dec(0, &j.header)
	dec(1, &j.claims)
	dec(2, nil)
	j.signingInput = parts[0] + "." + parts[1]
	return j
}

// azVerifyES256 verifies j's ES256 signature with the P-256 key k.
func azVerifyES256(k azJWK, j azJWT) error {
	x, errX := base64.RawURLEncoding.DecodeString(k.X)
	y, errY := base64.RawURLEncoding.DecodeString(k.Y)
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return fmt.Errorf("key coordinates x %q y %q", k.X, k.Y)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return err
	}
	if len(j.signature) != 64 {
		return fmt.Errorf("an ES256 signature is 64 bytes, got %d", len(j.signature))
	}
	h := sha256.Sum256([]byte(j.signingInput))
	r, s := new(big.Int).SetBytes(j.signature[:32]), new(big.Int).SetBytes(j.signature[32:])
	if !ecdsa.Verify(pub, h[:], r, s) {
		return fmt.Errorf("does not verify with key %s", k.Kid)
	}
	return nil
}
