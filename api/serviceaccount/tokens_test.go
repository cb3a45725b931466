package serviceaccount

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
)

func TestNewRefusesWhatKubeApiserverRefuses(t *testing.T) {
	key := newECKey(t)
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no issuer", Config{SigningKey: key}, "service-account-issuer is a required flag"},
		{"empty issuer", Config{Issuers: []string{""}, SigningKey: key}, "service-account-issuer should not be an empty string"},
		{"repeated issuer", Config{Issuers: []string{"a", "a"}, SigningKey: key}, `service-account-issuer "a" is already specified`},
		{"bad URL", Config{Issuers: []string{"https://a b:x"}, SigningKey: key}, `service-account-issuer "https://a b:x" contained a ':' but was not a valid URL`},
		{"max expiration too short", Config{Issuers: []string{"a"}, SigningKey: key, MaxExpiration: time.Minute}, "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{"max expiration too long", Config{Issuers: []string{"a"}, SigningKey: key, MaxExpiration: (1<<32 + 1) * time.Second}, "must be between 1 hour and 2^32 seconds"},
		{"jwks uri not https", Config{Issuers: []string{"a"}, SigningKey: key, JWKSURI: "http://x/keys"}, "service-account-jwks-uri requires https scheme, parsed as: http://x/keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestAPIAudiencesDefaultToTheIssuers(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Issuers = []string{testIssuer, "https://old.example"} })
	if got := f.tokens.APIAudiences(); strings.Join(got, ",") != testIssuer+",https://old.example" {
		t.Fatalf("APIAudiences = %v, want the issuers", got)
	}
}

// decodeSegment decodes one base64url segment of a compact JWT.
func decodeSegment(t *testing.T, token string, i int) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a compact JWS", token)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTokenCarriesKubesClaims: the header and claims are those of a
// kube-apiserver bound token without a bound object.
func TestTokenCarriesKubesClaims(t *testing.T) {
	f := newFixture(t)
	f.getter.addSA("ns1", "builder", "uid-1")
	token := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr[int64](1200)})

	header := decodeSegment(t, token, 0)
	der, _ := x509.MarshalPKIXPublicKey(f.tokens.cfg.SigningKey.Public())
	sum := sha256.Sum256(der)
	if header["alg"] != "ES256" || header["kid"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Errorf("header = %v, want alg ES256 and kid base64url(sha256(DER public key))", header)
	}
	c := decodeSegment(t, token, 1)
	now := f.clock.Now().Unix()
	want := map[string]any{
		"iss": testIssuer, "sub": "system:serviceaccount:ns1:builder",
		"iat": float64(now), "nbf": float64(now), "exp": float64(now + 1200),
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("claim %s = %v, want %v", k, c[k], v)
		}
	}
	if aud, _ := c["aud"].([]any); len(aud) != 1 || aud[0] != testIssuer {
		t.Errorf("aud = %v, want [%s]", c["aud"], testIssuer)
	}
	if jti, _ := c["jti"].(string); len(jti) != 36 {
		t.Errorf("jti = %v, want a UUID", c["jti"])
	}
	k8s, _ := json.Marshal(c["kubernetes.io"])
	if string(k8s) != `{"namespace":"ns1","serviceaccount":{"name":"builder","uid":"uid-1"}}` {
		t.Errorf("kubernetes.io = %s", k8s)
	}
}

func TestRSASigningKeySignsRS256(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) { c.SigningKey = rsaKey })
	f.getter.addSA("ns1", "builder", "uid-1")
	token := f.mustIssue(t, "ns1", "builder", authenticationv1.TokenRequestSpec{})
	if alg := decodeSegment(t, token, 0)["alg"]; alg != "RS256" {
		t.Fatalf("alg = %v, want RS256", alg)
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.Claims
	if err := tok.Claims(&rsaKey.PublicKey, &claims); err != nil {
		t.Fatalf("verify with the RSA public key: %v", err)
	}
	if _, _, ok, err := f.auth.AuthenticateToken(t.Context(), token); !ok || err != nil {
		t.Fatalf("authenticate = %v, %v", ok, err)
	}
}
