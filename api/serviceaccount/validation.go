package serviceaccount

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Bounds of a TokenRequest's spec.expirationSeconds.
const (
	minTokenSeconds = 10 * 60
	maxTokenSeconds = 1 << 32
)

// validateTokenRequest is kube's static validation of a TokenRequest
// (pkg/apis/authentication/validation), its messages included.
func validateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	var exp int64
	if tr.Spec.ExpirationSeconds != nil {
		exp = *tr.Spec.ExpirationSeconds
	}
	if exp < minTokenSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
	}
	if exp > maxTokenSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
	}
	if isWebhookRef(tr.Spec.BoundObjectRef) {
		if len(tr.Spec.Audiences) != 1 {
			errs = append(errs, field.Invalid(spec.Child("audiences"), tr.Spec.Audiences, "must be length 1 when bound to a webhook config"))
		}
		return append(errs, validateWebhookAttestations(tr.Spec.Attestations, spec.Child("attestations"))...)
	}
	if len(tr.Spec.Attestations) != 0 {
		return field.ErrorList{field.Invalid(spec.Child("attestations"), tr.Spec.Attestations, "attestations may only be specified with a webhook bound object reference")}
	}
	return errs
}

// isWebhookRef reports whether ref names an admission webhook
// configuration.
func isWebhookRef(ref *authenticationv1.BoundObjectReference) bool {
	if ref == nil {
		return false
	}
	switch ref.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		return ref.APIVersion == "admissionregistration.k8s.io/v1"
	}
	return false
}

// validateWebhookAttestations checks the one admissionReviewAPIGroups
// attestation a webhook-bound request must carry.
func validateWebhookAttestations(attestations map[string]authenticationv1.AttestationValue, path *field.Path) field.ErrorList {
	if len(attestations) != 1 {
		return field.ErrorList{field.Invalid(path, attestations, "webhook bound requests require exactly one admissionReviewAPIGroups attestation")}
	}
	var errs field.ErrorList
	for key, values := range attestations {
		p := path.Key(key)
		switch {
		case key != authenticationv1.AttestationAdmissionReviewAPIGroups:
			errs = append(errs, field.NotSupported(p, key, []string{authenticationv1.AttestationAdmissionReviewAPIGroups}))
		case len(values) != 1:
			errs = append(errs, field.Invalid(p, values, "must specify a single value"))
		default:
			errs = append(errs, validateAPIGroup(values[0], p.Index(0))...)
		}
	}
	return errs
}

// validateAPIGroup checks an admissionReviewAPIGroups value: "*" or an
// API group name, never "".
func validateAPIGroup(group string, path *field.Path) field.ErrorList {
	if group == "" {
		return field.ErrorList{field.Invalid(path, group, "may not be an empty string")}
	}
	if group == "*" {
		return nil
	}
	var errs field.ErrorList
	for _, reason := range validation.IsDNS1123Subdomain(group) {
		errs = append(errs, field.Invalid(path, group, "must specify a valid API Group: "+reason))
	}
	return errs
}
