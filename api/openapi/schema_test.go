package openapi

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// sample exercises the reflection rules.
type sample struct {
	metav1.TypeMeta `json:",inline"`
	embedded
	Metadata    metav1.ObjectMeta    `json:"metadata,omitempty"`
	Pointer     *int32               `json:"pointer,omitempty"`
	Required    string               `json:"required"`
	Bytes       []byte               `json:"bytes,omitempty"`
	Quantity    resource.Quantity    `json:"quantity,omitempty"`
	IntOrString intstr.IntOrString   `json:"intOrString,omitempty"`
	Raw         runtime.RawExtension `json:"raw,omitempty"`
	UID         types.UID            `json:"uid,omitempty"`
	Any         interface{}          `json:"any,omitempty"`
	Counts      map[string]int64     `json:"counts,omitempty"`
	Self        *sample              `json:"self,omitempty"`
	Skipped     string               `json:"-"`
	_           string               // unexported: left out
	Merged      []item               `json:"merged,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Set         []string             `json:"set,omitempty" patchStrategy:"merge"`
	Tagged      []item               `json:"tagged,omitempty" listType:"map" listMapKey:"name,port"`
	Anonymous   struct {
		A string `json:"a"`
	} `json:"anonymous"`
	Untagged float64
	Zero     bool `json:"zero,omitzero"`
}

// SwaggerDoc describes sample.
func (sample) SwaggerDoc() map[string]string {
	return map[string]string{"": "sample is a test type.", "metadata": "Standard metadata.", "required": "Required is required."}
}

type embedded struct {
	Flattened string `json:"flattened,omitempty"`
}

type item struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// embedsTypeMeta has no SwaggerDoc of its own, only TypeMeta's.
type embedsTypeMeta struct {
	metav1.TypeMeta `json:",inline"`
}

// definitionOf builds the definition of t in dialect d and returns it with
// every definition collected.
func definitionOf(t *testing.T, d dialect, typ reflect.Type) (spec.Schema, map[string]*spec.Schema) {
	t.Helper()
	b := newBuilder(d)
	name := b.define(typ)
	defs := b.definitions()
	return *defs[name], defs
}

func TestReflectedObject(t *testing.T) {
	s, defs := definitionOf(t, swagger2, reflect.TypeFor[sample]())
	if s.Description != "sample is a test type." {
		t.Errorf("description = %q", s.Description)
	}
	var names []string
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"Untagged", "anonymous", "any", "apiVersion", "bytes", "counts", "flattened", "intOrString", "kind", "merged",
		"metadata", "pointer", "quantity", "raw", "required", "self", "set", "tagged", "uid", "zero"}
	if !slices.Equal(names, want) {
		t.Errorf("properties = %v\nwant %v", names, want)
	}
	if want := []string{"required", "anonymous", "Untagged"}; !slices.Equal(s.Required, want) {
		t.Errorf("required = %v, want %v", s.Required, want)
	}

	p := s.Properties
	checkType(t, "pointer", p["pointer"], "integer", "int32")
	checkType(t, "bytes", p["bytes"], "string", "byte")
	checkType(t, "uid", p["uid"], "string", "")
	checkType(t, "Untagged", p["Untagged"], "number", "double")
	checkType(t, "counts", p["counts"], "object", "")
	checkType(t, "counts values", *p["counts"].AdditionalProperties.Schema, "integer", "int64")
	checkType(t, "anonymous", p["anonymous"], "object", "")
	if len(p["any"].Type) != 0 {
		t.Errorf("any has type %v", p["any"].Type)
	}
	if got := p["metadata"]; got.Ref.String() != "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" || got.Description != "Standard metadata." {
		t.Errorf("metadata = %+v", got)
	}
	if got := refOf(p["self"]); got != "#/definitions/com.github.raftapi.raftapi.api.openapi.sample" {
		t.Errorf("self refers to %q", got)
	}

	quantity := defs["io.k8s.apimachinery.pkg.api.resource.Quantity"]
	if quantity == nil || quantity.Extensions[extIntOrString] != true || !slices.Equal(quantity.Type, []string{"string"}) {
		t.Errorf("Quantity = %+v", quantity)
	}
	ios := defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
	if ios == nil || ios.Extensions[extIntOrString] != true || ios.Format != "int-or-string" {
		t.Errorf("IntOrString = %+v", ios)
	}
	raw := defs["io.k8s.apimachinery.pkg.runtime.RawExtension"]
	if raw == nil || raw.Extensions[extPreserveUnknownFields] != true || !slices.Equal(raw.Type, []string{"object"}) {
		t.Errorf("RawExtension = %+v", raw)
	}
	if tm := defs["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]; tm == nil || tm.Format != "date-time" || !slices.Equal(tm.Type, []string{"string"}) {
		t.Errorf("Time = %+v", tm)
	}
}

func TestListExtensions(t *testing.T) {
	s, _ := definitionOf(t, swagger2, reflect.TypeFor[sample]())
	tests := []struct {
		field string
		want  spec.Extensions
	}{
		{"merged", spec.Extensions{extPatchStrategy: "merge", extPatchMergeKey: "name", extListType: "map", extListMapKeys: []any{"name"}}},
		{"set", spec.Extensions{extPatchStrategy: "merge", extListType: "set"}},
		{"tagged", spec.Extensions{extListType: "map", extListMapKeys: []any{"name", "port"}}},
		{"required", nil},
	}
	for _, tt := range tests {
		if got := s.Properties[tt.field].Extensions; !reflect.DeepEqual(got, tt.want) && (len(got) != 0 || len(tt.want) != 0) {
			t.Errorf("%s extensions = %v, want %v", tt.field, got, tt.want)
		}
	}
}

func TestDialectV3(t *testing.T) {
	s, defs := definitionOf(t, openAPI3, reflect.TypeFor[sample]())
	meta := s.Properties["metadata"]
	if meta.Ref.String() != "" || len(meta.AllOf) != 1 || meta.AllOf[0].Ref.String() != "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" || meta.Description == "" {
		t.Errorf("v3 metadata = %+v, want a described allOf of the ObjectMeta $ref", meta)
	}
	if self := s.Properties["self"]; self.Ref.String() == "" {
		t.Errorf("undescribed $ref wrapped: %+v", self)
	}
	ios := defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
	if len(ios.Type) != 0 || len(ios.OneOf) != 2 || ios.Extensions[extIntOrString] != true {
		t.Errorf("v3 IntOrString = %+v", ios)
	}
}

func TestPromotedSwaggerDocIgnored(t *testing.T) {
	s, _ := definitionOf(t, swagger2, reflect.TypeFor[embedsTypeMeta]())
	if s.Description != "" {
		t.Errorf("description = %q, want none (TypeMeta's is not the type's)", s.Description)
	}
	if s.Properties["kind"].Description == "" {
		t.Error("kind lost its description")
	}
}

// refOf returns the $ref of s.
func refOf(s spec.Schema) string { return s.Ref.String() }

// checkType fails unless s has type typ and format.
func checkType(t *testing.T, what string, s spec.Schema, typ, format string) {
	t.Helper()
	if !slices.Equal(s.Type, []string{typ}) || s.Format != format {
		t.Errorf("%s: type %v format %q, want %s %q", what, s.Type, s.Format, typ, format)
	}
}
