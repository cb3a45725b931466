package accessreview

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// decide asks authz about a and returns the review status: allowed and
// denied from the decision (both false for no opinion), the reason, and
// the evaluation error.
func decide(ctx context.Context, authz authorizer.UnconditionalAuthorizer, a authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	decision, reason, err := authz.Authorize(ctx, a)
	return authorizationv1.SubjectAccessReviewStatus{
		Allowed:         decision == authorizer.DecisionAllow,
		Denied:          decision == authorizer.DecisionDeny,
		Reason:          reason,
		EvaluationError: evaluationError(err, a),
	}
}

// invalid is kube-apiserver's 422 for a review that fails validation. It
// names the group alone: the review decoded for validation carries no
// kind, so the message reads `.authorization.k8s.io "" is invalid: ...`.
func invalid(errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName}, "", errs)
}
