package serviceaccount

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestDiscoveryDocuments(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) { c.VerificationKeys = []crypto.PublicKey{&rsaKey.PublicKey} })
	h, err := f.tokens.Discovery("10.0.0.7:6443")
	if err != nil {
		t.Fatal(err)
	}
	rec := get(t, h, OpenIDConfigPath)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "public, max-age=3600" {
		t.Fatalf("configuration: %d %v", rec.Code, rec.Header())
	}
	want := `{"issuer":"` + testIssuer + `","jwks_uri":"https://10.0.0.7:6443/openid/v1/jwks","response_types_supported":["id_token"],` +
		`"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`
	if rec.Body.String() != want {
		t.Errorf("configuration =\n%s\nwant\n%s", rec.Body, want)
	}

	rec = get(t, h, JWKSPath)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/jwk-set+json" || rec.Header().Get("Cache-Control") != "public, max-age=3600" {
		t.Fatalf("key set: %d %v", rec.Code, rec.Header())
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(rec.Body.Bytes(), &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 2 {
		t.Fatalf("%d keys, want the signing key and the key-file key", len(set.Keys))
	}
	for i, k := range set.Keys {
		if !k.IsPublic() || k.Use != "sig" || k.KeyID != f.tokens.keys[i].id || k.Algorithm != string(f.tokens.keys[i].alg) {
			t.Errorf("key %d = %+v", i, k)
		}
	}
	if strings.Contains(rec.Body.String(), `"d":`) {
		t.Error("the key set holds a private key")
	}
}

func TestDiscoveryJWKSURIOverride(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.JWKSURI = "https://keys.example/jwks" })
	h, err := f.tokens.Discovery("10.0.0.7:6443")
	if err != nil {
		t.Fatal(err)
	}
	if body := get(t, h, OpenIDConfigPath).Body.String(); !strings.Contains(body, `"jwks_uri":"https://keys.example/jwks"`) {
		t.Fatalf("configuration = %s", body)
	}
}

func TestDiscoveryNeedsAnHTTPSIssuer(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Issuers = []string{"kubernetes/serviceaccount"} })
	if _, err := f.tokens.Discovery("10.0.0.7:6443"); err == nil || !strings.Contains(err.Error(), "issuer URL must use https scheme") {
		t.Fatalf("Discovery = %v, want the https error", err)
	}
}

func TestDiscoveryRefusesOtherMethods(t *testing.T) {
	f := newFixture(t)
	h, _ := f.tokens.Discovery("10.0.0.7:6443")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, JWKSPath, nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST = %d, want 405", rec.Code)
	}
}
