package api

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/raftapi/raftapi/raftstore"
)

// objectMeta is the part of a stored object selectors look at.
type objectMeta struct {
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		UID       string            `json:"uid"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
}

func decodeMeta(obj []byte) (objectMeta, bool) {
	var m objectMeta
	return m, json.Unmarshal(obj, &m) == nil
}

// predicate returns the store predicate of the query's selectors, or nil
// when both are empty.
func (q *query) predicate() raftstore.Predicate {
	if q.labels.Empty() && q.fields.Empty() {
		return nil
	}
	return func(obj []byte) bool {
		m, ok := decodeMeta(obj)
		if !ok {
			return false
		}
		fs := fields.Set{"metadata.name": m.Metadata.Name, "metadata.namespace": m.Metadata.Namespace}
		return q.labels.Matches(labels.Set(m.Metadata.Labels)) && q.fields.Matches(fs)
	}
}
