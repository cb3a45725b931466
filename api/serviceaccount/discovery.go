package serviceaccount

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	jose "github.com/go-jose/go-jose/v4"
)

// The paths of the issuer's OpenID Connect discovery, as kube-apiserver's.
const (
	// OpenIDConfigPath serves the OpenID provider configuration.
	OpenIDConfigPath = "/.well-known/openid-configuration"
	// JWKSPath serves the JSON Web Key Set of the verification keys.
	JWKSPath = "/openid/v1/jwks"
)

// Response headers of the discovery documents, as kube-apiserver's.
const (
	cacheControl = "public, max-age=3600"
	mediaJSON    = "application/json"
	mediaJWKS    = "application/jwk-set+json"
)

// openIDMetadata is the subset of the OpenID provider metadata
// kube-apiserver publishes, in its order.
type openIDMetadata struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// discovery serves the two pre-rendered documents.
type discovery struct {
	config, keyset []byte
}

// Discovery returns the handler of OpenIDConfigPath and JWKSPath: the
// provider configuration of the issuer new tokens carry (its jwks_uri
// the configured one or, as kube-apiserver's, https://externalAddress
// followed by JWKSPath: the server's own address, where relying parties
// can fetch the keys even when the issuer names an in-cluster host) and
// the public
// verification keys. As kube-apiserver, it refuses an issuer that is not
// an https URL without query or fragment: relying parties could not use
// the documents, and the caller should not serve them.
func (t *Tokens) Discovery(externalAddress string) (http.Handler, error) {
	iss, err := url.Parse(t.Issuer())
	switch {
	case err != nil:
		return nil, err
	case iss.Scheme != "https":
		return nil, fmt.Errorf("issuer URL must use https scheme, got: %s", t.Issuer())
	case iss.RawQuery != "":
		return nil, fmt.Errorf("issuer URL may not include a query, got: %s", t.Issuer())
	case iss.Fragment != "":
		return nil, fmt.Errorf("issuer URL may not include a fragment, got: %s", t.Issuer())
	}
	keyset := t.keySet()
	jwksURI := t.cfg.JWKSURI
	if jwksURI == "" {
		jwksURI = (&url.URL{Scheme: "https", Host: externalAddress, Path: JWKSPath}).String()
	}
	config, err := json.Marshal(openIDMetadata{
		Issuer:        t.Issuer(),
		JWKSURI:       jwksURI,
		ResponseTypes: []string{"id_token"},
		SubjectTypes:  []string{"public"},
		SigningAlgs:   signingAlgs(keyset),
	})
	if err != nil {
		return nil, fmt.Errorf("failed to marshal service account issuer metadata: %v", err)
	}
	keys, err := json.Marshal(keyset)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal service account issuer JWKS: %v", err)
	}
	return &discovery{config: config, keyset: keys}, nil
}

// keySet is the JSON Web Key Set of the verification keys.
func (t *Tokens) keySet() jose.JSONWebKeySet {
	var set jose.JSONWebKeySet
	for _, k := range t.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.key, KeyID: k.id, Algorithm: string(k.alg), Use: "sig"})
	}
	return set
}

// signingAlgs are the sorted algorithms of the keys.
func signingAlgs(set jose.JSONWebKeySet) []string {
	var algs []string
	for _, k := range set.Keys {
		if !slices.Contains(algs, k.Algorithm) {
			algs = append(algs, k.Algorithm)
		}
	}
	slices.Sort(algs)
	return algs
}

// ServeHTTP implements http.Handler: GET (or HEAD) of either path.
func (d *discovery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	var media string
	switch r.URL.Path {
	case OpenIDConfigPath:
		body, media = d.config, mediaJSON
	case JWKSPath:
		body, media = d.keyset, mediaJWKS
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "405: Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", media)
	w.Header().Set("Cache-Control", cacheControl)
	_, _ = w.Write(body)
}
