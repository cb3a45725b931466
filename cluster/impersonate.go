package cluster

import (
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Kubernetes' impersonation headers.
const (
	impersonateUser        = "Impersonate-User"
	impersonateGroup       = "Impersonate-Group"
	impersonateUID         = "Impersonate-Uid"
	impersonateExtraPrefix = "Impersonate-Extra-"
)

// impersonation is one thing a request asks to act as, authorized with
// the verb impersonate on its resource and name.
type impersonation struct {
	group, resource, namespace, name string
}

// authenticationGroup holds the uids and userextras resources.
const authenticationGroup = "authentication.k8s.io"

// impersonate applies the request's impersonation headers, as
// kube-apiserver's impersonation filter: every user, group, uid and extra
// asked for is authorized for u with the verb impersonate (users,
// groups, uids, userextras/KEY; a service account name is the
// serviceaccounts resource in its namespace), and the request then acts
// as the user asked for, with the groups asked for plus
// system:authenticated (system:unauthenticated for system:anonymous).
// Groups, a uid or extras without a user are an error (500, as kube). It
// returns u itself when the request impersonates no one.
func (n *Node) impersonate(u User, r *http.Request) (User, *apierrors.StatusError) {
	h := r.Header
	name := h.Get(impersonateUser)
	groups := h.Values(impersonateGroup)
	uid := h.Get(impersonateUID)
	extra := impersonatedExtra(h)
	if name == "" {
		if len(groups) > 0 || uid != "" || len(extra) > 0 {
			return u, apierrors.NewInternalError(fmt.Errorf("requested %v without impersonating a user", requested(groups, uid, extra)))
		}
		return u, nil
	}
	for _, imp := range impersonations(name, groups, uid, extra) {
		if !n.allowed(r.Context(), imp.attributes(u)) {
			return u, impersonationForbidden(u, imp)
		}
	}
	as := User{Name: name, UID: uid, Groups: slices.Clone(groups), Extra: extra}
	everyone := authenticated
	if name == anonymousUser {
		everyone = unauthenticated
	}
	if !slices.Contains(as.Groups, everyone) {
		as.Groups = append(as.Groups, everyone)
	}
	for k := range h {
		if strings.HasPrefix(k, "Impersonate-") {
			h.Del(k)
		}
	}
	return as, nil
}

// impersonatedExtra reads the Impersonate-Extra-KEY headers; the key is
// percent-decoded and lower-cased, as kube does.
func impersonatedExtra(h http.Header) map[string][]string {
	var out map[string][]string
	for k, v := range h {
		if !strings.HasPrefix(k, impersonateExtraPrefix) {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(k, impersonateExtraPrefix))
		if dec, err := url.PathUnescape(key); err == nil {
			key = dec
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[key] = append(out[key], v...)
	}
	return out
}

// impersonations lists what authorizing the request must check.
func impersonations(name string, groups []string, uid string, extra map[string][]string) []impersonation {
	out := []impersonation{userImpersonation(name)}
	for _, g := range groups {
		out = append(out, impersonation{resource: "groups", name: g})
	}
	if uid != "" {
		out = append(out, impersonation{group: authenticationGroup, resource: "uids", name: uid})
	}
	for k, vs := range extra {
		for _, v := range vs {
			out = append(out, impersonation{group: authenticationGroup, resource: "userextras/" + k, name: v})
		}
	}
	return out
}

// userImpersonation is a user to impersonate: a service account
// (system:serviceaccount:NS:NAME) is the serviceaccounts resource.
func userImpersonation(name string) impersonation {
	if rest, ok := strings.CutPrefix(name, "system:serviceaccount:"); ok {
		if ns, sa, ok := strings.Cut(rest, ":"); ok && ns != "" && sa != "" && !strings.Contains(sa, ":") {
			return impersonation{resource: "serviceaccounts", namespace: ns, name: sa}
		}
	}
	return impersonation{resource: "users", name: name}
}

// requested renders what a request without a user asked for, for the
// error.
func requested(groups []string, uid string, extra map[string][]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, impersonateGroup+"="+g)
	}
	if uid != "" {
		out = append(out, impersonateUID+"="+uid)
	}
	for k, vs := range extra {
		for _, v := range vs {
			out = append(out, textproto.CanonicalMIMEHeaderKey(impersonateExtraPrefix+k)+"="+v)
		}
	}
	return out
}

// attributes are the authorization request of impersonating imp: verb
// impersonate on its resource (userextras/KEY is the subresource KEY).
func (imp impersonation) attributes(u User) authorizer.AttributesRecord {
	resource, sub, _ := strings.Cut(imp.resource, "/")
	return authorizer.AttributesRecord{User: u.info(), Verb: "impersonate", ResourceRequest: true,
		APIGroup: imp.group, Resource: resource, Subresource: sub, Namespace: imp.namespace, Name: imp.name}
}

// impersonationForbidden is kube-apiserver's 403 for a refused
// impersonation.
func impersonationForbidden(u User, imp impersonation) *apierrors.StatusError {
	resource, sub, _ := strings.Cut(imp.resource, "/")
	scope := "at the cluster scope"
	if imp.namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", imp.namespace)
	}
	what := resource
	if sub != "" {
		what += "/" + sub
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: imp.group, Resource: resource}, imp.name,
		fmt.Errorf("User %q cannot impersonate resource %q in API group %q %s", u.Name, what, imp.group, scope))
}
