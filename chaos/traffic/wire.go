package traffic

import (
	"encoding/json"
	"strconv"

	"github.com/raftapi/raftapi/chaos/history"
)

// valueKey is the configmap data key holding the register's value.
const valueKey = "v"

// object is the part of a ConfigMap (or bookmark) the clients read and
// write.
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
}

func newObject(ns, name, value string, rv int64) object {
	o := object{APIVersion: "v1", Kind: "ConfigMap", Data: map[string]string{valueKey: value}}
	o.Metadata.Name, o.Metadata.Namespace = name, ns
	if rv > 0 {
		o.Metadata.ResourceVersion = strconv.FormatInt(rv, 10)
	}
	return o
}

func (o *object) rv() int64 {
	n, _ := strconv.ParseInt(o.Metadata.ResourceVersion, 10, 64)
	return n
}

func (o *object) item() history.Item {
	return history.Item{Key: o.Metadata.Name, Value: o.Data[valueKey], RV: o.rv()}
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
}

// initialEventsEnd is the annotation on the bookmark that ends a watch's
// initial events.
const initialEventsEnd = "k8s.io/initial-events-end"
