package handlers

import (
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/registry"
)

// parseWriteParams reads dryRun, fieldValidation, fieldManager and force.
// An unknown dryRun value is 400; an unknown fieldValidation value or a
// fieldManager over 128 bytes is 422 on optionsKind, as kube-apiserver
// answers.
func parseWriteParams(r *http.Request, optionsKind string) (registry.WriteOptions, error) {
	v := r.URL.Query()
	wp := registry.WriteOptions{FieldValidation: metav1.FieldValidationWarn, FieldManager: v.Get("fieldManager")}
	for _, d := range v["dryRun"] {
		if d != metav1.DryRunAll {
			return wp, apierrors.NewBadRequest("unsupported dryRun value " + strconv.Quote(d) + `: only "All" is supported`)
		}
		wp.DryRun = true
	}
	gk := schema.GroupKind{Group: metav1.GroupName, Kind: optionsKind}
	switch fv := v.Get("fieldValidation"); fv {
	case "":
	case metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict:
		wp.FieldValidation = fv
	default:
		return wp, apierrors.NewInvalid(gk, "", field.ErrorList{
			field.NotSupported(field.NewPath("fieldValidation"), fv, []string{metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict}),
		})
	}
	if len(wp.FieldManager) > 128 {
		return wp, apierrors.NewInvalid(gk, "", field.ErrorList{field.TooLong(field.NewPath("fieldManager"), "", 128)})
	}
	wp.Manager = managerOrUserAgent(wp.FieldManager, r.UserAgent())
	if f := v.Get("force"); f != "" {
		force, err := strconv.ParseBool(f)
		if err != nil {
			return wp, apierrors.NewBadRequest("invalid force parameter " + strconv.Quote(f))
		}
		wp.Force = force
	}
	return wp, nil
}

// managerOrUserAgent is kube-apiserver's default field manager name: the
// fieldManager parameter, else the User-Agent's product (up to the first
// "/", at most 128 bytes).
func managerOrUserAgent(manager, userAgent string) string {
	if manager != "" {
		return manager
	}
	prefix, _, _ := strings.Cut(userAgent, "/")
	if len(prefix) > 128 {
		prefix = prefix[:128]
	}
	return prefix
}

// writeWarnings sets one Warning header per warning, in kube-apiserver's
// form: 299 - "text".
// WithWarnings serves h with warnings added to every response as
// Warning headers (a deprecated version's, as kube-apiserver sends them).
func WithWarnings(warnings []string, h http.HandlerFunc) http.HandlerFunc {
	if len(warnings) == 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		writeWarnings(w, warnings)
		h(w, r)
	}
}

func writeWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(msg))
	}
}
