package cluster

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// policyFunc is an authorizer made of a function, standing in for RBAC in
// the serving chain's unit tests.
type policyFunc func(a authorizer.Attributes) bool

func (f policyFunc) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if f(a) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// testPolicy is a small part of the bootstrap policy: discovery for
// every authenticated user, /metrics for system:monitoring, everything
// but the cluster's own resources for the group "dev", impersonating
// anyone but system:masters for the group "impersonators".
func testPolicy() *unionAuthorizer {
	return &unionAuthorizer{modes: []string{ModeRBAC}, rbac: policyFunc(func(a authorizer.Attributes) bool {
		groups := a.GetUser().GetGroups()
		switch {
		case a.GetVerb() == "impersonate":
			return slices.Contains(groups, "impersonators") && a.GetName() != "system:masters"
		case !a.IsResourceRequest() && strings.HasPrefix(a.GetPath(), "/api"):
			return slices.Contains(groups, authenticated)
		case a.GetPath() == "/metrics":
			return slices.Contains(groups, monitoringGroup)
		case a.IsResourceRequest():
			return slices.Contains(groups, "dev") && a.GetAPIGroup() != "raftapi.io"
		}
		return false
	})}
}
