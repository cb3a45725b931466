// Package accessreview serves the review resources of authentication and
// authorization, with kube-apiserver's semantics: resources whose only
// verb is create, which answer a question and store nothing.
//
//   - authentication.k8s.io/v1 SelfSubjectReview (kubectl auth whoami):
//     the request's user, after impersonation.
//   - authorization.k8s.io/v1 SubjectAccessReview (cluster-scoped) and
//     LocalSubjectAccessReview (namespaced): may the user of spec do what
//     spec's attributes say.
//   - authorization.k8s.io/v1 SelfSubjectAccessReview (kubectl auth
//     can-i): may the request's user do it.
//   - authorization.k8s.io/v1 SelfSubjectRulesReview (kubectl auth can-i
//     --list): the rules the request's user has in a namespace.
//
// The answers come from the authorizer and the rule resolver the server
// authorizes requests with (k8s.io/apiserver's authorizer interfaces); the
// request's user is the one the serving chain put in the context
// (api/request.UserFrom). Validation and messages are kube-apiserver's
// (pkg/apis/authorization/validation and pkg/registry/authorization): a
// malformed review is 422 Invalid, a missing user or namespace 400.
package accessreview
