package accessreview

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

var labelOperators = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

// labelRequirements converts structured label requirements as
// kube-apiserver does: a requirement it cannot use is left out and its
// error returned with the others, which is safe because requirements are
// ANDed (leaving one out only broadens the check).
func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var reqs labels.Requirements
	var errs []error
	for _, r := range in {
		op, ok := labelOperators[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, *req)
	}
	return reqs, utilerrors.NewAggregate(errs)
}

// fieldRequirements converts structured field requirements as
// kube-apiserver does: In and NotIn with a single value become = and !=;
// anything else is left out with an error.
func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var reqs fields.Requirements
	var errs []error
	for _, r := range in {
		req, err := fieldRequirement(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, req)
	}
	return reqs, utilerrors.NewAggregate(errs)
}

func fieldRequirement(r metav1.FieldSelectorRequirement) (fields.Requirement, error) {
	if len(r.Values) > 1 {
		return fields.Requirement{}, errors.New("fieldSelectors do not yet support multiple values")
	}
	switch r.Operator {
	case metav1.FieldSelectorOpIn:
		if len(r.Values) != 1 {
			return fields.Requirement{}, errors.New("fieldSelectors in must have one value")
		}
		return fields.Requirement{Field: r.Key, Operator: selection.Equals, Value: r.Values[0]}, nil
	case metav1.FieldSelectorOpNotIn:
		if len(r.Values) != 1 {
			return fields.Requirement{}, errors.New("fieldSelectors not in must have one value")
		}
		return fields.Requirement{Field: r.Key, Operator: selection.NotEquals, Value: r.Values[0]}, nil
	case metav1.FieldSelectorOpExists, metav1.FieldSelectorOpDoesNotExist:
		return fields.Requirement{}, fmt.Errorf("fieldSelectors do not yet support %v", r.Operator)
	}
	return fields.Requirement{}, fmt.Errorf("%q is not a valid field selector operator", r.Operator)
}
