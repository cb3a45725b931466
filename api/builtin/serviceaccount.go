package builtin

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
)

// serviceAccounts describes core/v1 serviceaccounts.
func serviceAccounts() *resource.Resource {
	return &resource.Resource{
		Version:    "v1",
		Kind:       "ServiceAccount",
		ListKind:   "ServiceAccountList",
		Plural:     "serviceaccounts",
		Singular:   "serviceaccount",
		Namespaced: true,
		ShortNames: []string{"sa"},
		New:        func() runtime.Object { return &corev1.ServiceAccount{} },
		NewList:    func() runtime.Object { return &corev1.ServiceAccountList{} },
		Columns: []resource.Column{
			column("Secrets", corev1.ServiceAccount{}.SwaggerDoc()["secrets"], 0, countCell("secrets")),
		},
		Strategy: typed[*corev1.ServiceAccount]{
			prepareCreate: cleanSecretReferences,
			prepareUpdate: func(sa, _ *corev1.ServiceAccount) { cleanSecretReferences(sa) },
			validate:      validateServiceAccount,
			validateUpdate: func(sa, _ *corev1.ServiceAccount) field.ErrorList {
				return validateServiceAccount(sa)
			},
		},
		ValidateName: apivalidation.NameIsDNSSubdomain,
	}
}

// ServiceAccountToken is the token subresource of serviceaccounts:
// POST .../serviceaccounts/NAME/token with an authentication.k8s.io/v1
// TokenRequest, answered by create (a token for the service account).
func ServiceAccountToken(create resource.SubresourceCreateFunc) resource.Subresource {
	return resource.Subresource{Name: "token", Verbs: []string{"create"}, Create: create, Body: tokenRequests()}
}

// tokenRequests describes the authentication.k8s.io/v1 TokenRequest
// objects the token subresource takes and answers with.
func tokenRequests() *resource.Resource {
	return &resource.Resource{
		Group:      authenticationv1.GroupName,
		Version:    "v1",
		Kind:       "TokenRequest",
		Plural:     "serviceaccounts",
		Singular:   "serviceaccount",
		Namespaced: true,
		New:        func() runtime.Object { return &authenticationv1.TokenRequest{} },
	}
}

// cleanSecretReferences keeps only the name of each secrets entry: the
// references are to secrets in the service account's own namespace.
func cleanSecretReferences(sa *corev1.ServiceAccount) {
	for i, s := range sa.Secrets {
		sa.Secrets[i] = corev1.ObjectReference{Name: s.Name}
	}
}

// validateServiceAccount has nothing to check beyond metadata.
func validateServiceAccount(sa *corev1.ServiceAccount) field.ErrorList {
	return validateMetaFinalizers(&sa.ObjectMeta)
}
