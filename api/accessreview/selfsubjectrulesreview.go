package accessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// selfSubjectRulesReview answers with the rules the request's user has in
// spec.namespace (kubectl auth can-i --list): the cluster-wide rules and
// the namespace's, whether the list is incomplete, and the resolver's
// error. The answer holds the status alone, as kube-apiserver's does.
func selfSubjectRulesReview(rules authorizer.RuleResolver) resource.ReviewFunc {
	return func(ctx context.Context, _ string, obj runtime.Object) (runtime.Object, error) {
		srr, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %#v", obj))
		}
		u, ok := request.UserFrom(ctx)
		if !ok {
			return nil, errNoUser()
		}
		if srr.Spec.Namespace == "" {
			return nil, apierrors.NewBadRequest("no namespace on request")
		}
		res, nonRes, incomplete, err := rules.RulesFor(ctx, u, srr.Spec.Namespace)
		out := &authorizationv1.SelfSubjectRulesReview{
			TypeMeta: metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SelfSubjectRulesReview"},
			Status: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules: resourceRules(res), NonResourceRules: nonResourceRules(nonRes), Incomplete: incomplete,
			},
		}
		if err != nil {
			out.Status.EvaluationError = err.Error()
		}
		return out, nil
	}
}

func resourceRules(infos []authorizer.ResourceRuleInfo) []authorizationv1.ResourceRule {
	out := make([]authorizationv1.ResourceRule, len(infos))
	for i, r := range infos {
		out[i] = authorizationv1.ResourceRule{
			Verbs: r.GetVerbs(), APIGroups: r.GetAPIGroups(), Resources: r.GetResources(), ResourceNames: r.GetResourceNames(),
		}
	}
	return out
}

func nonResourceRules(infos []authorizer.NonResourceRuleInfo) []authorizationv1.NonResourceRule {
	out := make([]authorizationv1.NonResourceRule, len(infos))
	for i, r := range infos {
		out[i] = authorizationv1.NonResourceRule{Verbs: r.GetVerbs(), NonResourceURLs: r.GetNonResourceURLs()}
	}
	return out
}
