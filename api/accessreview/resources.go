package accessreview

import (
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/resource"
)

// Resources returns the review resources: SelfSubjectReview always, the
// three subject access reviews when authz is set, and
// SelfSubjectRulesReview when rules is set.
func Resources(authz authorizer.UnconditionalAuthorizer, rules authorizer.RuleResolver) []*resource.Resource {
	out := []*resource.Resource{SelfSubjectReviewResource()}
	if authz != nil {
		out = append(out,
			SubjectAccessReviewResource(authz),
			LocalSubjectAccessReviewResource(authz),
			SelfSubjectAccessReviewResource(authz),
		)
	}
	if rules != nil {
		out = append(out, SelfSubjectRulesReviewResource(rules))
	}
	return out
}

// SelfSubjectReviewResource describes authentication.k8s.io/v1
// selfsubjectreviews.
func SelfSubjectReviewResource() *resource.Resource {
	return review(authenticationv1.SchemeGroupVersion.Group, "SelfSubjectReview", false,
		func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }, selfSubjectReview)
}

// SubjectAccessReviewResource describes authorization.k8s.io/v1
// subjectaccessreviews, answered by authz.
func SubjectAccessReviewResource(authz authorizer.UnconditionalAuthorizer) *resource.Resource {
	return review(authorizationv1.GroupName, "SubjectAccessReview", false,
		func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }, subjectAccessReview(authz))
}

// LocalSubjectAccessReviewResource describes authorization.k8s.io/v1
// localsubjectaccessreviews, answered by authz.
func LocalSubjectAccessReviewResource(authz authorizer.UnconditionalAuthorizer) *resource.Resource {
	return review(authorizationv1.GroupName, "LocalSubjectAccessReview", true,
		func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }, localSubjectAccessReview(authz))
}

// SelfSubjectAccessReviewResource describes authorization.k8s.io/v1
// selfsubjectaccessreviews, answered by authz.
func SelfSubjectAccessReviewResource(authz authorizer.UnconditionalAuthorizer) *resource.Resource {
	return review(authorizationv1.GroupName, "SelfSubjectAccessReview", false,
		func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, selfSubjectAccessReview(authz))
}

// SelfSubjectRulesReviewResource describes authorization.k8s.io/v1
// selfsubjectrulesreviews, answered by rules.
func SelfSubjectRulesReviewResource(rules authorizer.RuleResolver) *resource.Resource {
	return review(authorizationv1.GroupName, "SelfSubjectRulesReview", false,
		func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, selfSubjectRulesReview(rules))
}

// review describes a create-only review resource of group/v1 whose plural
// and singular are its kind in lower case.
func review(group, kind string, namespaced bool, newObj func() runtime.Object, fn resource.ReviewFunc) *resource.Resource {
	singular := strings.ToLower(kind)
	return &resource.Resource{
		Group: group, Version: "v1", Kind: kind,
		Plural: singular + "s", Singular: singular, Namespaced: namespaced,
		Verbs: metav1.Verbs{"create"}, New: newObj, Review: fn,
	}
}
