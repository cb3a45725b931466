package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/audit"
	"github.com/raftapi/raftapi/pki"
)

// Authorization modes (--authorization-mode), kube-apiserver's names.
const (
	ModeRBAC        = "RBAC"
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
)

// supportedModes are the modes raftapi implements; kube's Node, ABAC and
// Webhook modes have nothing to act on here (no nodes, no policy file
// format, no webhook client) and are refused at start.
var supportedModes = []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeRBAC}

// validateModes checks an --authorization-mode list as kube-apiserver
// does: known modes, none twice.
func validateModes(modes []string) error {
	seen := map[string]bool{}
	for _, m := range modes {
		if !slices.Contains(supportedModes, m) {
			return fmt.Errorf("authorization-mode %q is not supported; use one or more of %s", m, strings.Join(supportedModes, ","))
		}
		if seen[m] {
			return fmt.Errorf("authorization-mode %q has mode specified more than once", m)
		}
		seen[m] = true
	}
	return nil
}

// publicPaths are the non-resource paths kube-apiserver's bootstrap policy
// (system:public-info-viewer) opens to everyone, authenticated or not.
// They are open here before any mode is asked, so that a probe of a node
// that has not joined a cluster yet (and so has no roles) is answered;
// single checks such as /readyz/raft-leader are not among them.
var publicPaths = map[string]bool{"/livez": true, "/readyz": true, "/healthz": true, "/version": true, "/version/": true}

func isPublic(path string) bool { return publicPaths[path] }

// unionAuthorizer asks the configured modes in order, after kube's
// privileged-group rule (system:masters may do anything): the first
// decision other than NoOpinion wins; the reasons of those without one
// are joined, as kube's union authorizer does.
type unionAuthorizer struct {
	modes []string
	rbac  authorizer.UnconditionalAuthorizer
}

// uses reports whether mode is one of the configured modes.
func (a *unionAuthorizer) uses(mode string) bool { return slices.Contains(a.modes, mode) }

// rbacReady is the readiness of authorization: with RBAC, the node's
// authorizer has loaded its roles and bindings and they hold the default
// policy.
func (n *Node) rbacReady(s *api.Server) func() error {
	if !n.authz.uses(ModeRBAC) {
		return nil
	}
	return func() error {
		if !s.RBAC().HasSynced() {
			return errors.New("RBAC roles and bindings not loaded yet")
		}
		return s.RBACBootstrapReady()
	}
}

// Authorize implements authorizer.UnconditionalAuthorizer.
func (a *unionAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if u := attrs.GetUser(); u != nil && slices.Contains(u.GetGroups(), pki.AdminGroup) {
		return authorizer.DecisionAllow, "", nil
	}
	var reasons []string
	for _, mode := range a.modes {
		var (
			d      authorizer.Decision
			reason string
			err    error
		)
		switch mode {
		case ModeAlwaysAllow:
			d = authorizer.DecisionAllow
		case ModeAlwaysDeny:
			reason = "Everything is forbidden."
		case ModeRBAC:
			if a.rbac == nil {
				continue
			}
			d, reason, err = a.rbac.Authorize(ctx, attrs)
		}
		if d != authorizer.DecisionNoOpinion || err != nil {
			return d, reason, err
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	return authorizer.DecisionNoOpinion, strings.Join(reasons, "\n"), nil
}

// RulesFor implements authorizer.RuleResolver, as kube's union rule
// resolver: the rules of every configured mode, in order (AlwaysAllow:
// everything; AlwaysDeny: nothing; RBAC: the user's roles). The
// system:masters rule lists nothing itself: the default policy binds the
// group to cluster-admin, as kube's does.
func (a *unionAuthorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var (
		resources    []authorizer.ResourceRuleInfo
		nonResources []authorizer.NonResourceRuleInfo
		incomplete   bool
		errs         []error
	)
	for _, mode := range a.modes {
		switch mode {
		case ModeAlwaysAllow:
			resources = append(resources, &authorizer.DefaultResourceRuleInfo{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}})
			nonResources = append(nonResources, &authorizer.DefaultNonResourceRuleInfo{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}})
		case ModeRBAC:
			rules, ok := a.rbac.(authorizer.RuleResolver)
			if !ok {
				continue
			}
			r, nr, inc, err := rules.RulesFor(ctx, u, namespace)
			resources, nonResources = append(resources, r...), append(nonResources, nr...)
			incomplete = incomplete || inc
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return resources, nonResources, incomplete, errors.Join(errs...)
}

// authorize decides whether u may make request r, as kube-apiserver's
// authorization filter: allowed, or a 403 with kube's message (500 when
// the authorizer failed).
func (n *Node) authorize(u User, r *http.Request) *apierrors.StatusError {
	if isPublic(r.URL.Path) {
		return nil
	}
	attrs := requestAttributes(u.info(), r)
	d, reason, err := n.authz.Authorize(r.Context(), attrs)
	audit.LogAuthorizationDecision(r.Context(), d, reason, err)
	switch {
	case d == authorizer.DecisionAllow:
		return nil
	case err != nil:
		return apierrors.NewInternalError(err)
	}
	return forbidden(attrs, reason)
}

// allowed reports whether attrs are allowed, for checks made on behalf of
// a request (impersonation).
func (n *Node) allowed(ctx context.Context, attrs authorizer.Attributes) bool {
	d, _, _ := n.authz.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

// requestAttributes are what kube's RequestInfoFactory tells the
// authorizers about r: for a resource request its verb (get, list, watch,
// create, update, patch, delete, deletecollection), group, version,
// resource, subresource, namespace and name — a list or watch whose field
// selector requires one metadata.name is about that name —; for any other
// path the lower-cased method.
func requestAttributes(u user.Info, r *http.Request) authorizer.AttributesRecord {
	info := requestInfoOf(r)
	attrs := authorizer.AttributesRecord{User: u, Path: r.URL.Path}
	if info.resource == "" {
		attrs.Verb = strings.ToLower(r.Method)
		return attrs
	}
	attrs.ResourceRequest = true
	attrs.Verb = info.authzVerb()
	attrs.APIGroup, attrs.APIVersion = info.group, info.version
	attrs.Resource, attrs.Subresource = info.resource, info.subresource
	attrs.Namespace, attrs.Name = info.namespace, info.name
	if attrs.Name == "" && (attrs.Verb == "list" || attrs.Verb == "watch") {
		attrs.Name = selectedName(r)
	}
	return attrs
}

// selectedName is the name a fieldSelector requires exactly, if it is a
// valid path segment.
func selectedName(r *http.Request) string {
	sel, err := fields.ParseSelector(r.URL.Query().Get("fieldSelector"))
	if err != nil {
		return ""
	}
	if name, ok := sel.RequiresExactMatch("metadata.name"); ok && len(content.IsPathSegmentName(name)) == 0 {
		return name
	}
	return ""
}

// messageSanitizer escapes what a forbidden message repeats from the
// request, as kube's does.
var messageSanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// forbidden is kube-apiserver's 403 for a request the authorizer refused,
// its reason appended.
func forbidden(attrs authorizer.Attributes, reason string) *apierrors.StatusError {
	msg := messageSanitizer.Replace(forbiddenMessage(attrs))
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: attrs.GetAPIGroup(), Resource: attrs.GetResource()}
	return apierrors.NewForbidden(gr, attrs.GetName(), fmt.Errorf("%s", msg))
}

// forbiddenMessage is kube's text for attrs: what the user cannot do,
// where.
func forbiddenMessage(attrs authorizer.Attributes) string {
	name := ""
	if u := attrs.GetUser(); u != nil {
		name = u.GetName()
	}
	if !attrs.IsResourceRequest() {
		return fmt.Sprintf("User %q cannot %s path %q", name, attrs.GetVerb(), attrs.GetPath())
	}
	resource := attrs.GetResource()
	if sub := attrs.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	if ns := attrs.GetNamespace(); ns != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, attrs.GetVerb(), resource, attrs.GetAPIGroup(), ns)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, attrs.GetVerb(), resource, attrs.GetAPIGroup())
}
