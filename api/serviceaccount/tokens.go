package serviceaccount

import (
	"crypto"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Bounds of --service-account-max-token-expiration, as kube-apiserver's.
const (
	minMaxExpiration = time.Hour
	maxMaxExpiration = time.Duration(1<<32) * time.Second
)

// Config is how tokens are issued and verified: kube-apiserver's
// --service-account-issuer, --service-account-signing-key-file,
// --service-account-key-file, --api-audiences,
// --service-account-max-token-expiration and --service-account-jwks-uri.
type Config struct {
	// Issuers are the accepted "iss" claims; the first is the one new
	// tokens carry. At least one.
	Issuers []string
	// SigningKey signs new tokens: an *ecdsa.PrivateKey (P-256, P-384 or
	// P-521; ES256, ES384, ES512) or an *rsa.PrivateKey (RS256).
	SigningKey crypto.Signer
	// VerificationKeys verify tokens besides SigningKey's public key:
	// public keys, or private keys whose public half is meant.
	VerificationKeys []crypto.PublicKey
	// APIAudiences are the API's identifiers: a token used against the
	// API must name one of them. Empty: the issuers.
	APIAudiences []string
	// MaxExpiration caps the lifetime a TokenRequest may ask for; zero
	// means no cap. Otherwise between one hour and 2^32 seconds.
	MaxExpiration time.Duration
	// JWKSURI is the jwks_uri of the discovery document; empty: the
	// server's external address followed by /openid/v1/jwks (see
	// Discovery).
	JWKSURI string
	// Now is the clock tokens are issued and checked by; nil: time.Now.
	Now func() time.Time
}

// Tokens signs and checks service-account tokens (see the package
// comment). It is safe for concurrent use.
type Tokens struct {
	cfg     Config
	signer  jose.Signer
	keys    []verificationKey
	byID    map[string][]verificationKey
	algs    []jose.SignatureAlgorithm
	issuers map[string]bool
}

// New checks cfg as kube-apiserver checks its flags and returns the
// issuer and verifier it describes.
func New(cfg Config) (*Tokens, error) {
	if err := validateIssuers(cfg.Issuers); err != nil {
		return nil, err
	}
	if cfg.MaxExpiration != 0 && (cfg.MaxExpiration < minMaxExpiration || cfg.MaxExpiration > maxMaxExpiration) {
		return nil, errors.New("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds")
	}
	if err := validateJWKSURI(cfg.JWKSURI); err != nil {
		return nil, err
	}
	if cfg.SigningKey == nil {
		return nil, errors.New("serviceaccount: no signing key")
	}
	if len(cfg.APIAudiences) == 0 {
		cfg.APIAudiences = cfg.Issuers
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	t := &Tokens{cfg: cfg, issuers: map[string]bool{}, byID: map[string][]verificationKey{}}
	for _, iss := range cfg.Issuers {
		t.issuers[iss] = true
	}
	if err := t.addKeys(append([]crypto.PublicKey{cfg.SigningKey.Public()}, cfg.VerificationKeys...)); err != nil {
		return nil, err
	}
	signer, err := newSigner(cfg.SigningKey)
	if err != nil {
		return nil, err
	}
	t.signer = signer
	return t, nil
}

// validateIssuers applies kube-apiserver's checks of
// --service-account-issuer.
func validateIssuers(issuers []string) error {
	if len(issuers) == 0 {
		return errors.New("service-account-issuer is a required flag")
	}
	seen := map[string]bool{}
	var errs []error
	for _, iss := range issuers {
		switch {
		case strings.Contains(iss, ":") && parseURL(iss) != nil:
			errs = append(errs, fmt.Errorf("service-account-issuer %q contained a ':' but was not a valid URL: %v", iss, parseURL(iss)))
		case iss == "":
			errs = append(errs, errors.New("service-account-issuer should not be an empty string"))
		case seen[iss]:
			errs = append(errs, fmt.Errorf("service-account-issuer %q is already specified", iss))
		}
		seen[iss] = true
	}
	return errors.Join(errs...)
}

func parseURL(s string) error {
	_, err := url.Parse(s)
	return err
}

// validateJWKSURI applies kube-apiserver's checks of
// --service-account-jwks-uri.
func validateJWKSURI(uri string) error {
	if uri == "" {
		return nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("service-account-jwks-uri must be a valid URL: %v", err)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("service-account-jwks-uri requires https scheme, parsed as: %v", u.String())
	}
	return nil
}

// addKeys records the verification keys; the same key given twice (the
// signing key's public half also in a key file) is kept once.
func (t *Tokens) addKeys(keys []crypto.PublicKey) error {
	for _, k := range keys {
		vk, err := newVerificationKey(k)
		if err != nil {
			return fmt.Errorf("serviceaccount: verification key: %w", err)
		}
		if len(t.byID[vk.id]) > 0 {
			continue
		}
		t.keys = append(t.keys, vk)
		t.byID[vk.id] = append(t.byID[vk.id], vk)
		if !containsAlg(t.algs, vk.alg) {
			t.algs = append(t.algs, vk.alg)
		}
	}
	return nil
}

func containsAlg(algs []jose.SignatureAlgorithm, alg jose.SignatureAlgorithm) bool {
	for _, a := range algs {
		if a == alg {
			return true
		}
	}
	return false
}

// newSigner signs with key under kube's key id, in a JWK of use "sig".
func newSigner(key crypto.Signer) (jose.Signer, error) {
	vk, err := newVerificationKey(key.Public())
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: signing key: %w", err)
	}
	jwk := &jose.JSONWebKey{Algorithm: string(vk.alg), Key: key, KeyID: vk.id, Use: "sig"}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: vk.alg, Key: jwk}, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to create signer: %v", err)
	}
	return signer, nil
}

// Issuer is the issuer new tokens carry.
func (t *Tokens) Issuer() string { return t.cfg.Issuers[0] }

// APIAudiences are the audiences of the API (--api-audiences, or the
// issuers).
func (t *Tokens) APIAudiences() []string { return append([]string(nil), t.cfg.APIAudiences...) }

// sign serializes the claims into a compact JWS. As kube's generator, the
// public claims win over the private ones, and the issuer over both.
func (t *Tokens) sign(public *publicClaims, private *privateClaims) (string, error) {
	return jwt.Signed(t.signer).
		Claims(private).
		Claims(public).
		Claims(&publicClaims{Issuer: t.Issuer()}).
		Serialize()
}
