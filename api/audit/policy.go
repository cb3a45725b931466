package audit

import (
	"fmt"
	"slices"

	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	kubeaudit "k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/audit/policy"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Policy decides how much of a request to record: kube-apiserver's
// audit policy evaluation. The first rule whose users, userGroups, verbs,
// resources (group, resource or "resource/subresource", "*" and
// "*/subresource" wildcards, resourceNames), namespaces or
// nonResourceURLs (exact, "*" or a trailing-"*" prefix) all match the
// request's attributes gives the level; a request no rule matches is not
// recorded. The stages a rule omits are its own plus the policy's.
type Policy struct {
	eval kubeaudit.PolicyRuleEvaluator
}

// requestConfig is what the policy decided for one request.
type requestConfig struct {
	level             auditv1.Level
	omitStages        []auditv1.Stage
	omitManagedFields bool
}

// LoadPolicy reads an audit.k8s.io/v1 Policy from a YAML or JSON file,
// refusing one that does not decode, names an unknown level or stage,
// lacks apiVersion and kind, or has no rules, with kube-apiserver's
// messages.
func LoadPolicy(path string) (*Policy, error) {
	p, err := policy.LoadPolicyFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading audit policy file: %v", err)
	}
	return newPolicy(p), nil
}

// ParsePolicy decodes an audit.k8s.io/v1 Policy from YAML or JSON, as
// LoadPolicy does a file.
func ParsePolicy(data []byte) (*Policy, error) {
	p, err := policy.LoadPolicyFromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("loading audit policy file: %v", err)
	}
	return newPolicy(p), nil
}

func newPolicy(p *auditinternal.Policy) *Policy {
	return &Policy{eval: policy.NewPolicyRuleEvaluator(p)}
}

// evaluate returns the level, omitted stages and managedFields choice
// for a request with attrs (a nil user for one that failed
// authentication).
func (p *Policy) evaluate(attrs authorizer.Attributes) requestConfig {
	rc := p.eval.EvaluatePolicyRule(attrs)
	out := requestConfig{level: auditv1.Level(rc.Level), omitManagedFields: rc.OmitManagedFields}
	for _, s := range rc.OmitStages {
		out.omitStages = append(out.omitStages, auditv1.Stage(s))
	}
	return out
}

// omits reports whether the stage is left out of the log.
func (c requestConfig) omits(stage auditv1.Stage) bool {
	return slices.Contains(c.omitStages, stage)
}

// atLeast reports whether the request is recorded at level l or more.
func (c requestConfig) atLeast(l auditv1.Level) bool {
	return !auditinternal.Level(c.level).Less(auditinternal.Level(l))
}
