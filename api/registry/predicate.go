package registry

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/raftapi/raftapi/api/resource"
)

// CheckFieldSelector refuses field selectors on fields the resource does
// not index, with kube-apiserver's message.
func CheckFieldSelector(sel fields.Selector, res *resource.Resource) error {
	if sel == nil {
		return nil
	}
	for _, req := range sel.Requirements() {
		if !res.HasField(req.Field) {
			return apierrors.NewBadRequest("field label not supported: " + req.Field)
		}
	}
	return nil
}

// predicate returns the store predicate of the options' selectors, or
// nil when both are empty. Fields of a resource with a Schema are matched
// in the served form, the object converted to the version of the request
// (a custom resource's selectable fields are its version's). An object
// that cannot be converted matches: converting it again to answer fails
// the list (or ends the watch) with the conversion's error, as
// kube-apiserver fails a request whose objects it cannot convert.
func predicate(res *resource.Resource, o ListOptions) Predicate {
	ls, fs := o.LabelSelector, o.FieldSelector
	if ls == nil {
		ls = labels.Everything()
	}
	if fs == nil {
		fs = fields.Everything()
	}
	if ls.Empty() && fs.Empty() {
		return nil
	}
	return func(data []byte) bool {
		var obj map[string]any
		if utiljson.Unmarshal(data, &obj) != nil { // integers as int64, as a conversion expects them
			return false
		}
		if !fs.Empty() && res.Schema != nil && res.Schema.Stored(obj) != nil {
			return true // kept, so that encoding it fails the request as kube's conversion does
		}
		return matchesLabels(ls, obj) && matchesFields(res, fs, obj)
	}
}

func matchesLabels(sel labels.Selector, obj map[string]any) bool {
	if sel.Empty() {
		return true
	}
	ls := labels.Set{}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if l, ok := md["labels"].(map[string]any); ok {
			for k, v := range l {
				ls[k], _ = v.(string)
			}
		}
	}
	return sel.Matches(ls)
}

func matchesFields(res *resource.Resource, sel fields.Selector, obj map[string]any) bool {
	if sel.Empty() {
		return true
	}
	fs := fields.Set{}
	for _, req := range sel.Requirements() {
		fs[req.Field], _ = res.FieldValue(obj, req.Field)
	}
	return sel.Matches(fs)
}
