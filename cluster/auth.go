package cluster

import (
	"context"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/raftapi/raftapi/api/httpstatus"
	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/pki"
)

// Users and groups kube-apiserver gives the requests no credential
// identifies, and the one plain HTTP serves as.
const (
	anonymousUser       = "system:anonymous"
	unauthenticated     = "system:unauthenticated"
	authenticated       = "system:authenticated"
	monitoringGroup     = "system:monitoring"
	insecureUser        = "system:unsecured"
	authorizationHeader = "Authorization"
)

// User is who a request comes from.
type User struct {
	Name   string
	UID    string
	Groups []string
	// Extra is what the authenticator says besides (impersonation's
	// Impersonate-Extra-KEY headers).
	Extra map[string][]string
}

func (u User) in(group string) bool { return slices.Contains(u.Groups, group) }

// info is u as k8s.io/apiserver's authorizers and audit see a user.
func (u User) info() user.Info {
	return &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

type userKey struct{}

// UserFrom returns the user authenticate stored in ctx.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// authenticate identifies the request's user as kube-apiserver does, in
// its order: a client certificate the API's client CAs verified (common
// name the user, organizations its groups), then a bearer token (those of
// --token-auth-file, then service-account tokens; any other is refused,
// see tokenChain), then, unless --anonymous-auth
// is off, anonymous. With plain HTTP every request is the all-powerful
// system:unsecured.
func (n *Node) authenticate(r *http.Request) (User, bool) {
	if n.api.tls == nil {
		return User{Name: insecureUser, Groups: []string{pki.AdminGroup, authenticated}}, true
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		leaf, err := n.api.verifyClient(r.TLS.PeerCertificates)
		if err != nil {
			return User{}, false
		}
		groups := append(slices.Clone(leaf.Subject.Organization), authenticated)
		return User{Name: leaf.Subject.CommonName, Groups: groups}, true
	}
	if token := bearerToken(r); token != "" {
		return n.authenticateToken(r.Context(), token)
	}
	if n.cfg.NoAnonymousAuth {
		return User{}, false
	}
	return User{Name: anonymousUser, Groups: []string{unauthenticated}}, true
}

// bearerToken returns the request's bearer token, "" for none: as kube's
// bearer-token authenticator, another scheme (Basic, say) or an empty
// token is no credential at all.
func bearerToken(r *http.Request) string {
	parts := strings.SplitN(strings.TrimSpace(r.Header.Get(authorizationHeader)), " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return ""
	}
	return parts[1]
}

// withAuth authenticates and authorizes every request before next serves
// it: 401 for credentials that identify no one, 403 for a user the policy
// refuses, both as kube-apiserver's Status. A request that impersonates
// another user (impersonate) is authorized as that user.
func (n *Node) withAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := n.authenticate(r)
		if !ok {
			httpstatus.Write(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		user, serr := n.impersonateAudited(user, r)
		if serr != nil {
			httpstatus.Write(w, serr)
			return
		}
		if err := n.authorize(user, r); err != nil {
			httpstatus.Write(w, err)
			return
		}
		ctx := context.WithValue(r.Context(), userKey{}, user)
		next.ServeHTTP(w, r.WithContext(request.WithUser(ctx, user.info())))
	})
}
