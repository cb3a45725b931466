package openapi

import (
	"reflect"
	"sync"

	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// swaggerDocer is implemented by the k8s.io/api and apimachinery types: the
// type's description under "" and each field's under its JSON name.
type swaggerDocer interface {
	SwaggerDoc() map[string]string
}

// swaggerDoc returns the descriptions of struct type t, or nil. A
// SwaggerDoc promoted from an embedded field describes that field's type,
// not t, so it is ignored.
func swaggerDoc(t reflect.Type) map[string]string {
	d, ok := reflect.New(t).Interface().(swaggerDocer)
	if !ok {
		if docs, ok := fallbackDocs[t]; ok {
			return docs
		}
		return generatedDocs()[definitionName(t)]
	}
	docs := d.SwaggerDoc()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		if e, ok := reflect.New(deref(f.Type)).Interface().(swaggerDocer); ok && reflect.DeepEqual(e.SwaggerDoc(), docs) {
			return nil
		}
	}
	return docs
}

// fallbackDocs describe the apimachinery types that have no SwaggerDoc.
var fallbackDocs = map[reflect.Type]map[string]string{
	reflect.TypeFor[metav1.Time](): {
		"": "Time is a timestamp, written in RFC 3339 form with second precision.",
	},
	reflect.TypeFor[metav1.MicroTime](): {
		"": "MicroTime is a timestamp, written in RFC 3339 form with microsecond precision.",
	},
	reflect.TypeFor[metav1.Duration](): {
		"": "Duration is a length of time, written as a Go duration string such as \"1h30m\".",
	},
	reflect.TypeFor[resource.Quantity](): {
		"": "Quantity is a fixed-point number, written as a string with an optional suffix (\"100m\", \"1.5Gi\", \"2\") or as a number.",
	},
	reflect.TypeFor[intstr.IntOrString](): {
		"": "IntOrString holds either an int32 or a string.",
	},
	reflect.TypeFor[runtime.RawExtension](): {
		"": "RawExtension holds an embedded object of any kind.",
	},
	reflect.TypeFor[metav1.WatchEvent](): {
		"":       "WatchEvent is one event of a watch stream.",
		"type":   "Type of the event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.",
		"object": "Object is the object the event is about: its new state for ADDED and MODIFIED, its last state for DELETED, a Status for ERROR, and an object carrying only the resourceVersion for BOOKMARK.",
	},
}

// generatedDocs are the descriptions of the types that have no SwaggerDoc
// but whose module generates OpenAPI definitions, by Go type name: the
// apiextensions.k8s.io types (CustomResourceDefinition), described as
// kube-apiserver describes them. The keys are definition names.
var generatedDocs = sync.OnceValue(func() map[string]map[string]string {
	defs := apiextensionsopenapi.GetOpenAPIDefinitions(func(string) spec.Ref { return spec.Ref{} })
	out := make(map[string]map[string]string, len(defs))
	for name, def := range defs {
		docs := map[string]string{"": def.Schema.Description}
		for field, s := range def.Schema.Properties {
			if s.Description != "" {
				docs[field] = s.Description
			}
		}
		out[name] = docs
	}
	return out
})

// deref strips pointers from t.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
