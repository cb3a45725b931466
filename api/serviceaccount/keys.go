package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
	"k8s.io/client-go/util/keyutil"
)

// verificationKey is one key tokens may be signed with: the public key,
// kube's key id for it and the JWS algorithm it verifies.
type verificationKey struct {
	id  string
	key crypto.PublicKey
	alg jose.SignatureAlgorithm
}

// keyID is kube-apiserver's key id of a public key: the unpadded
// base64url SHA-256 of its DER (PKIX) form. It names the key in the kid
// header of tokens and in the key set, and cannot be turned back into the
// key.
func keyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("failed to serialize public key to DER format: %v", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// algorithm is the JWS algorithm kube signs with, or verifies, for a key:
// RS256 for RSA, ES256, ES384 or ES512 by the curve of an ECDSA key.
func algorithm(pub crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", fmt.Errorf("unknown private key curve, must be 256, 384, or 521")
	}
	return "", fmt.Errorf("unknown public key type %T, must be *rsa.PublicKey or *ecdsa.PublicKey", pub)
}

// newVerificationKey describes pub, a public key or a private key whose
// public half is meant.
func newVerificationKey(pub crypto.PublicKey) (verificationKey, error) {
	if priv, ok := pub.(crypto.Signer); ok {
		pub = priv.Public()
	}
	alg, err := algorithm(pub)
	if err != nil {
		return verificationKey{}, err
	}
	id, err := keyID(pub)
	if err != nil {
		return verificationKey{}, err
	}
	return verificationKey{id: id, key: pub, alg: alg}, nil
}

// LoadSigningKeyFile reads kube-apiserver's
// --service-account-signing-key-file: a PEM private key, RSA (PKCS #1 or
// #8) or ECDSA (SEC 1 or PKCS #8).
func LoadSigningKeyFile(path string) (crypto.Signer, error) {
	key, err := keyutil.PrivateKeyFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to parse service-account-issuer-key-file: %v", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("failed to parse service-account-issuer-key-file: unsupported key type %T", key)
	}
	if _, err := algorithm(signer.Public()); err != nil {
		return nil, fmt.Errorf("failed to parse service-account-issuer-key-file: %v", err)
	}
	return signer, nil
}

// LoadKeyFiles reads kube-apiserver's --service-account-key-file files:
// each holds PEM RSA or ECDSA keys, public or private (whose public half
// is taken), which verify tokens.
func LoadKeyFiles(paths []string) ([]crypto.PublicKey, error) {
	var out []crypto.PublicKey
	for _, f := range paths {
		keys, err := keyutil.PublicKeysFromFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to parse key file %q: %w", f, err)
		}
		for _, k := range keys {
			out = append(out, k)
		}
	}
	return out, nil
}
