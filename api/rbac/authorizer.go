package rbac

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/registry"
)

// Authorizer is kube-apiserver's RBAC authorizer over the RBAC objects of
// one node's committed state (see the package comment). It is safe for
// concurrent use; Authorize and RulesFor never block on the store.
type Authorizer struct {
	store registry.Storage
	log   *slog.Logger
	kinds kinds

	// mu guards the four collections, which Run's followers fill.
	mu                  sync.Mutex
	roles               collection[rbacv1.Role]
	clusterRoles        collection[rbacv1.ClusterRole]
	roleBindings        collection[rbacv1.RoleBinding]
	clusterRoleBindings collection[rbacv1.ClusterRoleBinding]

	// changed holds a token while the collections have changed since
	// the index was last built.
	changed chan struct{}
	current atomic.Pointer[index]
	synced  chan struct{}
	once    sync.Once
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns the authorizer of the RBAC objects in store, which must be
// the registry's Storage (decrypted, keyed by resource.Resource.Key). It
// knows no object until Run has listed them: Authorize has no opinion on
// anything before.
func New(store registry.Storage, logger *slog.Logger) *Authorizer {
	if logger == nil {
		logger = slog.Default()
	}
	a := &Authorizer{
		store: store, log: logger, kinds: rbacKinds(),
		changed: make(chan struct{}, 1), synced: make(chan struct{}),
	}
	a.roles.res, a.clusterRoles.res = a.kinds.roles, a.kinds.clusterRoles
	a.roleBindings.res, a.clusterRoleBindings.res = a.kinds.roleBindings, a.kinds.clusterRoleBindings
	a.current.Store(buildIndex(objects{}))
	return a
}

// HasSynced reports whether the authorizer has listed every RBAC kind at
// least once and enforces what it listed.
func (a *Authorizer) HasSynced() bool {
	select {
	case <-a.synced:
		return true
	default:
		return false
	}
}

// Synced is closed once HasSynced is true.
func (a *Authorizer) Synced() <-chan struct{} { return a.synced }

// Authorize implements authorizer.Authorizer with kube's RBAC evaluation:
// DecisionAllow with the binding that allows the request as reason, or
// DecisionNoOpinion, whose reason names the roles of applicable bindings
// that were not found. It never returns an error.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	u := attrs.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "", nil
	}
	req := queryOf(attrs)
	var allowed *subject
	var errs []error
	a.current.Load().visit(u, attrs.GetNamespace(), func(b *binding, s *subject) bool {
		if !b.found {
			errs = append(errs, b.missingRole(authorizerNaming))
			return true
		}
		for i := range b.rules {
			if req.allows(&b.rules[i]) {
				allowed = s
				return false
			}
		}
		return true
	})
	if allowed != nil {
		return authorizer.DecisionAllow, allowed.reason, nil
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, "RBAC: " + utilerrors.NewAggregate(errs).Error(), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// ConditionsAwareAuthorize implements authorizer.Authorizer: RBAC has no
// conditional decisions.
func (a *Authorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// EvaluateConditions implements authorizer.Authorizer: RBAC has no
// conditions to evaluate.
func (a *Authorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor implements authorizer.RuleResolver as kube's RBAC authorizer
// does (SelfSubjectRulesReview): the rules granted to u cluster-wide and,
// when namespace is not "", in that namespace, split into resource and
// non-resource rules; never incomplete; the error names the roles of
// applicable bindings that were not found (the rules found are still
// granted).
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	rules, err := a.current.Load().rulesFor(u, namespace, authorizerNaming)
	var resourceRules []authorizer.ResourceRuleInfo
	var nonResourceRules []authorizer.NonResourceRuleInfo
	for _, r := range rules {
		if len(r.Resources) > 0 {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames,
			})
		}
		if len(r.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{
				Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, false, err
}

// PolicyRules returns the rules granted to u cluster-wide and, when
// namespace is not "", in that namespace, as RBAC PolicyRules (for access
// reviews and escalation checks); the error names the roles of
// applicable bindings that were not found.
func (a *Authorizer) PolicyRules(u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	return a.current.Load().rulesFor(u, namespace, authorizerNaming)
}
