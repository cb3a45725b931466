package cluster

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/httpstatus"
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

type userKey struct{}

// UserFrom returns the user authenticate stored in ctx.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// authenticate identifies the request's user as kube-apiserver does, in
// its order: a client certificate the API's client CAs verified (common
// name the user, organizations its groups), then a bearer token (those of
// --token-auth-file; any other is refused), then, unless --anonymous-auth
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
		return n.api.tokens.authenticate(token)
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
		user, serr := impersonate(user, r)
		if serr != nil {
			httpstatus.Write(w, serr)
			return
		}
		if err := authorize(user, r); err != nil {
			httpstatus.Write(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

// publicPaths are the non-resource paths kube-apiserver's bootstrap policy
// (system:public-info-viewer) opens to everyone, authenticated or not;
// single checks such as /readyz/raft-leader are not among them.
var publicPaths = map[string]bool{"/livez": true, "/readyz": true, "/healthz": true, "/version": true, "/version/": true}

func isPublic(path string) bool { return publicPaths[path] }

// authorize is the node's policy until role-based access control exists:
// system:masters may do anything; the health and version paths are open to
// all; the admin endpoints (/raftapi/v1/...) and the cluster's members
// (raftapi.io) are for system:masters only, /metrics for them and
// system:monitoring; everything else is open to every authenticated user
// and closed to anonymous ones.
func authorize(u User, r *http.Request) *apierrors.StatusError {
	path := r.URL.Path
	switch {
	case u.in(pki.AdminGroup), isPublic(path):
		return nil
	case strings.HasPrefix(path, "/raftapi/"), strings.HasPrefix(path, "/apis/raftapi.io/v1/"):
	case path == "/metrics":
		if u.in(monitoringGroup) {
			return nil
		}
	case u.in(authenticated):
		return nil
	}
	return forbidden(u, r)
}

// forbidden is kube-apiserver's 403 for a request the authorizer refused.
func forbidden(u User, r *http.Request) *apierrors.StatusError {
	info := parseRequestInfo(r)
	if info.resource == "" {
		return apierrors.NewForbidden(schema.GroupResource{}, "",
			fmt.Errorf("User %q cannot %s path %q", u.Name, strings.ToLower(r.Method), r.URL.Path))
	}
	resource := info.resource
	if info.subresource != "" {
		resource += "/" + info.subresource
	}
	var msg string
	if info.namespace != "" {
		msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", u.Name, info.authzVerb(), resource, info.group, info.namespace)
	} else {
		msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", u.Name, info.authzVerb(), resource, info.group)
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: info.group, Resource: info.resource}, info.name, fmt.Errorf("%s", msg))
}
