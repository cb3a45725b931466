package api

import (
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// writeParams are the query parameters of a mutating request and the
// warnings it collects on the way.
type writeParams struct {
	dryRun          bool
	fieldValidation string
	fieldManager    string
	// manager is the name managedFields record the write under:
	// fieldManager, or the client's User-Agent up to its first "/".
	manager string
	// force is the apply patch's force parameter.
	force    bool
	warnings []string
}

// parseWriteParams reads dryRun, fieldValidation and fieldManager. An
// unknown dryRun value is 400; an unknown fieldValidation value is 422 as
// kube-apiserver answers.
func parseWriteParams(r *http.Request, optionsKind string) (*writeParams, error) {
	v := r.URL.Query()
	wp := &writeParams{fieldValidation: metav1.FieldValidationWarn, fieldManager: v.Get("fieldManager")}
	for _, d := range v["dryRun"] {
		if d != metav1.DryRunAll {
			return nil, apierrors.NewBadRequest("unsupported dryRun value " + strconv.Quote(d) + `: only "All" is supported`)
		}
		wp.dryRun = true
	}
	switch fv := v.Get("fieldValidation"); fv {
	case "":
	case metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict:
		wp.fieldValidation = fv
	default:
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: optionsKind}, "", field.ErrorList{
			field.NotSupported(field.NewPath("fieldValidation"), fv, []string{metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict}),
		})
	}
	if len(wp.fieldManager) > 128 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: optionsKind}, "", field.ErrorList{
			field.TooLong(field.NewPath("fieldManager"), "", 128),
		})
	}
	wp.manager = managerOrUserAgent(wp.fieldManager, r.UserAgent())
	if f := v.Get("force"); f != "" {
		force, err := strconv.ParseBool(f)
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid force parameter " + strconv.Quote(f))
		}
		wp.force = force
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

// strict applies the fieldValidation directive to the unknown and
// duplicate fields a strict decoder reported.
func (wp *writeParams) strict(errs []error) error {
	switch wp.fieldValidation {
	case metav1.FieldValidationIgnore:
		return nil
	case metav1.FieldValidationStrict:
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return apierrors.NewBadRequest("strict decoding error: " + strings.Join(msgs, ", "))
	}
	for _, e := range errs {
		wp.warnings = append(wp.warnings, e.Error())
	}
	return nil
}

// writeWarnings sets one Warning header per collected warning, in
// kube-apiserver's form: 299 - "text".
func (wp *writeParams) writeWarnings(w http.ResponseWriter) {
	for _, msg := range wp.warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(msg))
	}
}
