package cluster

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/serviceaccount"
	"github.com/raftapi/raftapi/pki"
)

// DefaultServiceAccountIssuer is the issuer of service-account tokens
// when --service-account-issuer is not given, as k3s's.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// serviceAccounts is the node's share of service-account tokens.
type serviceAccounts struct {
	tokens *serviceaccount.Tokens
	// auth verifies tokens against this node's service accounts; set
	// once the API server is built, before the node serves.
	auth *serviceaccount.Authenticator
	// rootCA is the CA bundle published as kube-root-ca.crt (nil: none).
	rootCA []byte
}

// newServiceAccounts sets up the issuing and verifying of tokens from
// cfg's --service-account-* flags: signed with the key the cluster token
// derives (the same on every node) unless --service-account-signing-key-file
// names another.
func newServiceAccounts(cfg Config, auth *pki.Authority, api *apiSecurity) (*serviceAccounts, error) {
	var signer crypto.Signer = auth.ServiceAccountKey
	if cfg.ServiceAccountSigningKeyFile != "" {
		var err error
		if signer, err = serviceaccount.LoadSigningKeyFile(cfg.ServiceAccountSigningKeyFile); err != nil {
			return nil, fmt.Errorf("cluster: %w", err)
		}
	}
	keys, err := serviceaccount.LoadKeyFiles(cfg.ServiceAccountKeyFiles)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	issuers := cfg.ServiceAccountIssuers
	if len(issuers) == 0 {
		issuers = []string{DefaultServiceAccountIssuer}
	}
	tokens, err := serviceaccount.New(serviceaccount.Config{
		Issuers:          issuers,
		SigningKey:       signer,
		VerificationKeys: keys,
		APIAudiences:     cfg.APIAudiences,
		MaxExpiration:    cfg.ServiceAccountMaxTokenExpiration,
		JWKSURI:          cfg.ServiceAccountJWKSURI,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	rootCA, err := rootCABundle(cfg, api)
	if err != nil {
		return nil, err
	}
	return &serviceAccounts{tokens: tokens, rootCA: rootCA}, nil
}

// rootCABundle is what a client inside the cluster trusts to reach the
// API: the cluster CA when the node issued its serving certificate, the
// certificates that follow the leaf in --tls-cert-file otherwise (none
// when it holds the leaf alone), nothing with plain HTTP.
func rootCABundle(cfg Config, s *apiSecurity) ([]byte, error) {
	switch {
	case s.tls == nil:
		return nil, nil
	case s.admin != nil:
		return s.admin.CertPEM, nil
	}
	b, err := os.ReadFile(cfg.TLSCertFile)
	if err != nil {
		return nil, fmt.Errorf("cluster: --tls-cert-file: %w", err)
	}
	var out []byte
	for first := true; ; first = false {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return out, nil
		}
		if block.Type != "CERTIFICATE" || first {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, pem.EncodeToMemory(block)...)
		}
	}
}

// apiOptions are the API server's service-account options: tokens,
// tokenreviews answered by the node's token chain, the root CA.
func (sa *serviceAccounts) apiOptions(n *Node) *api.ServiceAccountOptions {
	return &api.ServiceAccountOptions{Tokens: sa.tokens, TokenAuthenticator: tokenChain{n}, RootCA: sa.rootCA}
}

// mountDiscovery serves the issuer's OpenID Connect discovery documents
// on mux, unless the issuer is no https URL (kube-apiserver then serves
// none, and says why).
func (sa *serviceAccounts) mountDiscovery(mux *http.ServeMux, n *Node) {
	h, err := sa.tokens.Discovery(n.advertisedAPIAddr())
	if err != nil {
		n.cfg.Logger.Warn("not serving the service account issuer discovery", "err", err)
		return
	}
	mux.Handle(serviceaccount.OpenIDConfigPath, h)
	mux.Handle(serviceaccount.JWKSPath, h)
}

// tokenChain is the node's bearer-token authenticators in kube's order:
// the tokens of --token-auth-file (which know no audiences: they are good
// for the API's), then service-account tokens. It implements
// serviceaccount.TokenAuthenticator for TokenReview; the users it returns
// are in system:authenticated, as kube's authentication adds.
type tokenChain struct{ n *Node }

var _ serviceaccount.TokenAuthenticator = tokenChain{}

// AuthenticateToken implements serviceaccount.TokenAuthenticator. Errors
// of authenticators that recognised the token but refused it are joined
// as kube's union does.
func (c tokenChain) AuthenticateToken(ctx context.Context, token string) (user.Info, []string, bool, error) {
	if u, ok := c.n.api.tokens.authenticate(token); ok {
		if auds, ok := c.audienceAgnostic(ctx); ok {
			return u.info(), auds, true, nil
		}
	}
	sa := c.n.sa
	if sa == nil || sa.auth == nil {
		return nil, nil, false, nil
	}
	u, auds, ok, err := sa.auth.AuthenticateToken(ctx, token)
	if !ok {
		return nil, nil, false, utilerrors.NewAggregate(nonNil(err))
	}
	return withAuthenticated(u), auds, true, nil
}

// audienceAgnostic is kube's rule for an authenticator that knows no
// audiences: without audiences asked for it answers as is; otherwise it
// is good for those of the API's that are asked for, and none is no
// answer.
func (c tokenChain) audienceAgnostic(ctx context.Context) ([]string, bool) {
	want, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		return nil, true
	}
	var implicit authenticator.Audiences
	if c.n.sa != nil {
		implicit = c.n.sa.tokens.APIAudiences()
	}
	auds := implicit.Intersect(want)
	return auds, len(auds) > 0
}

func nonNil(err error) []error {
	if err == nil {
		return nil
	}
	return []error{err}
}

// withAuthenticated is u in system:authenticated, as kube's
// authentication puts every authenticated user.
func withAuthenticated(u user.Info) user.Info {
	groups := append([]string(nil), u.GetGroups()...)
	groups = append(groups, authenticated)
	return &user.DefaultInfo{Name: u.GetName(), UID: u.GetUID(), Groups: groups, Extra: u.GetExtra()}
}

// authenticateToken authenticates a request's bearer token with the
// node's chain; a token it refuses is logged with the reason, as kube
// logs it, and is a 401.
func (n *Node) authenticateToken(ctx context.Context, token string) (User, bool) {
	u, _, ok, err := tokenChain{n}.AuthenticateToken(ctx, token)
	if !ok {
		if err != nil && n.cfg.Logger != nil {
			n.cfg.Logger.Info("Unable to authenticate the request", "err", err)
		}
		return User{}, false
	}
	return User{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}, true
}
