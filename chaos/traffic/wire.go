package traffic

import (
	"encoding/json"
	"strconv"

	"github.com/raftapi/raftapi/chaos/history"
)

// valueKey is the configmap data key holding the register's value.
const valueKey = "v"

// object is the part of a ConfigMap, a ChaosObject (or a bookmark) the
// clients read and write: a configmap holds the register's value in
// data.v, a custom object in the spec field of its version
// (Resource.ValueField).
type object struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Metadata   struct {
		Name            string            `json:"name,omitempty"`
		Namespace       string            `json:"namespace,omitempty"`
		ResourceVersion string            `json:"resourceVersion,omitempty"`
		Annotations     map[string]string `json:"annotations,omitempty"`
	} `json:"metadata"`
	Data map[string]string `json:"data,omitempty"`
	Spec map[string]any    `json:"spec,omitempty"`
}

// newObject is an object of res holding value; rv, when set, is the
// resourceVersion precondition of an update.
func newObject(res Resource, ns, name, value string, rv int64) object {
	o := object{APIVersion: res.APIVersion(), Kind: res.Kind}
	o.setValue(res, value)
	o.Metadata.Name, o.Metadata.Namespace = name, ns
	if rv > 0 {
		o.Metadata.ResourceVersion = strconv.FormatInt(rv, 10)
	}
	return o
}

// patchObject is the JSON merge patch that sets value if the object is
// still at resourceVersion rv.
func patchObject(res Resource, value string, rv int64) object {
	var o object
	o.setValue(res, value)
	o.Metadata.ResourceVersion = strconv.FormatInt(rv, 10)
	return o
}

func (o *object) setValue(res Resource, value string) {
	if res.Custom {
		o.Spec = map[string]any{res.ValueField: value}
	} else {
		o.Data = map[string]string{valueKey: value}
	}
}

func (o *object) rv() int64 {
	n, _ := strconv.ParseInt(o.Metadata.ResourceVersion, 10, 64)
	return n
}

// value is the register's value as an object of res holds it: the
// value field of res's version in a custom object's spec (a string; ""
// when the field is missing, as in an object of another version), data.v
// in a configmap.
func (o *object) value(res Resource) string {
	if res.Custom {
		s, _ := o.Spec[res.ValueField].(string)
		return s
	}
	return o.Data[valueKey]
}

func (o *object) item(res Resource) history.Item {
	return history.Item{Key: o.Metadata.Name, Value: o.value(res), RV: o.rv()}
}

// objectList is the part of a ConfigMapList the clients read.
type objectList struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
	Items []object `json:"items"`
}

func (l *objectList) rv() int64 {
	n, _ := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	return n
}

// watchEvent is one line of a watch stream.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// status is the part of a Status object the clients read.
type status struct {
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details struct {
		Name string `json:"name"`
	} `json:"details"`
}

// initialEventsEnd is the annotation on the bookmark that ends a watch's
// initial events.
const initialEventsEnd = "k8s.io/initial-events-end"
