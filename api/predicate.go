package api

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// checkFields refuses field selectors on fields the resource does not
// index, with kube-apiserver's message.
func checkFields(sel fields.Selector, res *resource.Resource) error {
	for _, req := range sel.Requirements() {
		if !res.HasField(req.Field) {
			return apierrors.NewBadRequest("field label not supported: " + req.Field)
		}
	}
	return nil
}

// predicate returns the store predicate of the query's selectors, or nil
// when both are empty.
func (q *query) predicate(res *resource.Resource) raftstore.Predicate {
	if q.labels.Empty() && q.fields.Empty() {
		return nil
	}
	return func(data []byte) bool {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil {
			return false
		}
		return q.matches(res, obj)
	}
}

func (q *query) matches(res *resource.Resource, obj map[string]any) bool {
	if !q.labels.Empty() {
		ls := labels.Set{}
		if md, ok := obj["metadata"].(map[string]any); ok {
			if l, ok := md["labels"].(map[string]any); ok {
				for k, v := range l {
					ls[k], _ = v.(string)
				}
			}
		}
		if !q.labels.Matches(ls) {
			return false
		}
	}
	if q.fields.Empty() {
		return true
	}
	fs := fields.Set{}
	for _, req := range q.fields.Requirements() {
		fs[req.Field], _ = res.FieldValue(obj, req.Field)
	}
	return q.fields.Matches(fs)
}
