package api

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/builtin"
	saccontroller "github.com/raftapi/raftapi/api/controllers/serviceaccount"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/api/serviceaccount"
)

// ServiceAccountOptions turn on what kube-apiserver and
// kube-controller-manager do for service accounts. With them the server
// keeps a default ServiceAccount in every namespace, and:
type ServiceAccountOptions struct {
	// Tokens, if set, issues tokens: the token subresource of
	// serviceaccounts (TokenRequest, kubectl create token), and
	// Server.ServiceAccountAuthenticator verifies them.
	Tokens *serviceaccount.Tokens
	// TokenAuthenticator, if set, answers authentication.k8s.io/v1
	// tokenreviews: the node's bearer-token authenticators, as its
	// authentication runs them (system:authenticated included). The
	// review's default audiences are those of Tokens.
	TokenAuthenticator serviceaccount.TokenAuthenticator
	// RootCA, if set, is the PEM CA bundle published in every namespace
	// as the ConfigMap kube-root-ca.crt: what a client inside the
	// cluster trusts to reach the API.
	RootCA []byte
}

// serviceAccounts is the server's share of service accounts.
type serviceAccounts struct {
	auth       *serviceaccount.Authenticator
	controller *saccontroller.Controller
}

// addServiceAccountTokens adds the token subresource to serviceaccounts.
// It runs before the registry is built, so that the codecs know the
// TokenRequest type; the subresource reads service accounts and secrets
// from storage.
func (s *Server) addServiceAccountTokens(resources *resource.Registry, storage registry.Storage) {
	o := s.opts.ServiceAccounts
	if o == nil || o.Tokens == nil {
		return
	}
	sa := resources.Get(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"})
	if sa == nil {
		return
	}
	getter := serviceaccount.StorageGetter(storage, resources)
	sa.Subresources = append(sa.Subresources, builtin.ServiceAccountToken(serviceaccount.TokenRequestFunc(o.Tokens, getter)))
	s.sa.auth = serviceaccount.NewAuthenticator(o.Tokens, getter)
}

// registerServiceAccounts registers tokenreviews and builds the
// controller of default service accounts and root CA configmaps.
func (s *Server) registerServiceAccounts() {
	o := s.opts.ServiceAccounts
	if o == nil {
		return
	}
	if o.TokenAuthenticator != nil {
		var auds []string
		if o.Tokens != nil {
			auds = o.Tokens.APIAudiences()
		}
		s.registry.Register(serviceaccount.TokenReviewResource(o.TokenAuthenticator, auds))
	}
	s.sa.controller = saccontroller.New(s.registry, o.RootCA, s.opts.Logger)
}

// ServiceAccountAuthenticator verifies the service-account tokens of
// Options.ServiceAccounts.Tokens, reading the service accounts from this
// node's state; nil without them. The node's authentication puts it in
// its bearer-token chain.
func (s *Server) ServiceAccountAuthenticator() *serviceaccount.Authenticator { return s.sa.auth }
