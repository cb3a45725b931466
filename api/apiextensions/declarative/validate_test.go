package declarative

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(f fixture)
		// want lists the errors, each as "<type> <field>: <part of the detail>".
		want []string
	}{
		{name: "the widgets policy", edit: func(fixture) {}},
		{name: "a single version needs no steps", edit: func(f fixture) {
			f.crd.Spec.Versions = f.crd.Spec.Versions[2:]
			f.policy.Spec.Steps = nil
		}},
		{name: "named after another definition", edit: func(f fixture) { f.policy.Name = "gadgets.test.raftapi.io" },
			want: []string{"FieldValueInvalid metadata.name: must be the name of the CustomResourceDefinition it converts, widgets.test.raftapi.io"}},
		{name: "an unknown version", edit: func(f fixture) { f.policy.Spec.Steps[1].To = "v2" },
			want: []string{"FieldValueNotFound spec.steps[1].to: "}},
		{name: "a step from a version to itself", edit: func(f fixture) { f.policy.Spec.Steps[1].To = "v1beta1" },
			want: []string{"FieldValueInvalid spec.steps[1].to: must differ from from"}},
		{name: "two steps between the same versions", edit: func(f fixture) {
			f.policy.Spec.Steps = append(f.policy.Spec.Steps, ConversionStep{From: "v1", To: "v1beta1"})
		}, want: []string{"FieldValueDuplicate spec.steps[2]: "}},
		{name: "a version no step joins", edit: func(f fixture) { f.policy.Spec.Steps = f.policy.Spec.Steps[:1] },
			want: []string{"FieldValueRequired spec.steps: version v1 is not chained to version v1alpha1"}},
		{name: "no steps for several versions", edit: func(f fixture) { f.policy.Spec.Steps = nil },
			want: []string{"FieldValueRequired spec.steps: version v1beta1 is not chained", "FieldValueRequired spec.steps: version v1 is not chained"}},
		{name: "a cycle", edit: func(f fixture) {
			f.policy.Spec.Steps = append(f.policy.Spec.Steps, ConversionStep{From: "v1alpha1", To: "v1"})
		}, want: []string{"FieldValueInvalid spec.steps: the steps form a cycle"}},
		{name: "a version joined three times", edit: func(f fixture) {
			f.crd.Spec.Versions = append(f.crd.Spec.Versions, *f.crd.Spec.Versions[2].DeepCopy(), *f.crd.Spec.Versions[2].DeepCopy())
			f.crd.Spec.Versions[3].Name, f.crd.Spec.Versions[4].Name = "v2", "v3"
			f.policy.Spec.Steps = append(f.policy.Spec.Steps, ConversionStep{From: "v1", To: "v2"}, ConversionStep{From: "v1", To: "v3"})
		}, want: []string{"FieldValueInvalid spec.steps: version v1 is joined by 3 steps"}},
		{name: "a rename from a field the version lacks", edit: func(f fixture) { f.policy.Spec.Steps[0].Renames[0].From = "spec.sise" },
			want: []string{"FieldValueInvalid spec.steps[0].renames[0].from: version v1alpha1 has no field spec.sise",
				"FieldValueRequired spec.steps[0]: field spec.size of v1alpha1 has no place in v1beta1: rename it, compute it, set it to a constant or drop it"}},
		{name: "a rename to a field the version lacks", edit: func(f fixture) { f.policy.Spec.Steps[0].Renames[0].To = "spec.size" },
			want: []string{"FieldValueInvalid spec.steps[0].renames[0].to: version v1beta1 has no field spec.size",
				"FieldValueRequired spec.steps[0]: field spec.replicas of v1beta1 has no place in v1alpha1"}},
		{name: "a rename between types", edit: func(f fixture) { f.policy.Spec.Steps[0].Renames[0].To = "spec.tier" },
			want: []string{"FieldValueDuplicate spec.steps[0].constants[0].path: ",
				"FieldValueInvalid spec.steps[0].renames[0].to: is string in v1beta1 but spec.size is integer in v1alpha1",
				"FieldValueRequired spec.steps[0]: field spec.replicas of v1beta1"}},
		{name: "a path through a list", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Dropped = append(f.policy.Spec.Steps[0].Dropped, FieldRef{Version: "v1alpha1", Path: "spec.ports.name"})
		}, want: []string{"FieldValueInvalid spec.steps[0].dropped[1].path: version v1alpha1 has no field spec.ports.name"}},
		{name: "a path of metadata", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Dropped = append(f.policy.Spec.Steps[0].Dropped, FieldRef{Version: "v1alpha1", Path: "metadata.labels"})
		}, want: []string{"FieldValueInvalid spec.steps[0].dropped[1].path: metadata is carried by every conversion"}},
		{name: "a path that is not dotted names", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Dropped[0].Path = "spec..legacyNote"
		}, want: []string{"FieldValueInvalid spec.steps[0].dropped[0].path: must be a dotted path of field names",
			"FieldValueRequired spec.steps[0]: field spec.legacyNote of v1alpha1 has no place in v1beta1"}},
		{name: "a rule for a version of another step", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Constants[0].Version = "v1"
		}, want: []string{`FieldValueNotSupported spec.steps[0].constants[0].version: supported values: "v1alpha1", "v1beta1"`,
			"FieldValueRequired spec.steps[0]: field spec.tier of v1beta1 has no place in v1alpha1"}},
		{name: "a constant of the wrong type", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Constants[0].Value = apiextensionsv1.JSON{Raw: []byte(`3`)}
		}, want: []string{"FieldValueInvalid spec.steps[0].constants[0].value: must be of the field's type, string, not integer"}},
		{name: "a constant outside the enum", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Constants[0].Value = apiextensionsv1.JSON{Raw: []byte(`"gold"`)}
		}, want: []string{`FieldValueNotSupported spec.steps[0].constants[0].value: supported values: "standard", "premium"`}},
		{name: "a constant with an unknown field", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Renames = nil
			f.policy.Spec.Steps[1].Constants = []FieldConstant{{Version: "v1", Path: "spec.style", Value: apiextensionsv1.JSON{Raw: []byte(`{"colour":"red"}`)}}}
			f.policy.Spec.Steps[1].Dropped = []FieldRef{{Version: "v1beta1", Path: "spec.color"}}
		}, want: []string{"FieldValueInvalid spec.steps[1].constants[0].value: unknown fields: colour"}},
		{name: "a null constant", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Constants[0].Value = apiextensionsv1.JSON{Raw: []byte(`null`)}
		}, want: []string{"FieldValueInvalid spec.steps[0].constants[0].value: a null constant would leave the field unset"}},
		{name: "an expression that does not compile", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Computed[0].Expression = "self.spec.colour + '/'"
		}, want: []string{"FieldValueInvalid spec.steps[1].computed[0].expression: compilation failed: ERROR: <input>:1:10: undefined field 'colour'"}},
		{name: "an expression of the wrong type", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Computed[0].Expression = "self.spec.replicas"
		}, want: []string{"FieldValueInvalid spec.steps[1].computed[0].expression: evaluates to int, which the field (string) cannot hold"}},
		{name: "an expression over the version it computes", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Computed[0].Expression = "self.spec.style.color"
		}, want: []string{"FieldValueInvalid spec.steps[1].computed[0].expression: compilation failed: ERROR: <input>:1:10: undefined field 'style'"}},
		{name: "an expression that costs too much", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Computed[0].Expression = "self.spec.ports.all(a, self.spec.ports.all(b, self.spec.ports.all(c, a.name + b.name + c.name != ''))) ? 'x' : 'y'"
		}, want: []string{"FieldValueInvalid spec.steps[1].computed[0].expression: estimated cost"}},
		{name: "a field named twice", edit: func(f fixture) {
			f.policy.Spec.Steps[0].Dropped = append(f.policy.Spec.Steps[0].Dropped, FieldRef{Version: "v1alpha1", Path: "spec.size"})
		}, want: []string{"FieldValueDuplicate spec.steps[0].dropped[1].path: \"spec.size\""}},
		{name: "a field inside a named one", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Dropped = []FieldRef{{Version: "v1beta1", Path: "spec.nested.a"}, {Version: "v1beta1", Path: "spec.nested"}}
		}, want: []string{"FieldValueInvalid spec.steps[1].dropped[0].path: spec.nested.a of v1beta1 is inside spec.nested, which spec.steps[1].dropped[1].path names"}},
		{name: "a field no rule accounts for", edit: func(f fixture) { f.policy.Spec.Steps[0].Dropped = nil },
			want: []string{"FieldValueRequired spec.steps[0]: field spec.legacyNote of v1alpha1 has no place in v1beta1: rename it, compute it, set it to a constant or drop it"}},
		{name: "a field of another type at the same path", edit: func(f fixture) {
			f.crd.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"].Properties["enabled"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		}, want: []string{"FieldValueRequired spec.steps[0]: field spec.enabled of v1alpha1 is boolean but string in v1beta1",
			"FieldValueRequired spec.steps[0]: field spec.enabled of v1beta1 is string but boolean in v1alpha1",
			"FieldValueRequired spec.steps[1]: field spec.enabled of v1beta1 is string but boolean in v1",
			"FieldValueRequired spec.steps[1]: field spec.enabled of v1 is boolean but string in v1beta1"}},
		{name: "a field a rule of the other version overwrites", edit: func(f fixture) {
			f.policy.Spec.Steps[1].Computed = append(f.policy.Spec.Steps[1].Computed, FieldComputed{Version: "v1", Path: "spec.enabled", Expression: "true"})
		}, want: []string{"FieldValueRequired spec.steps[1]: field spec.enabled of v1beta1 is where a rule of v1 puts another value"}},
		{name: "a version without a schema", edit: func(f fixture) { f.crd.Spec.Versions[0].Schema = nil },
			want: []string{"FieldValueInvalid spec.steps: version v1alpha1 of widgets.test.raftapi.io: a declarative conversion needs a schema for every version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustFixture(t, "widgets")
			tc.edit(f)
			assertErrors(t, Validate(f.crd, f.policy), tc.want)
		})
	}
}

// assertErrors fails unless errs are want, in order, each matched by
// type, field and a part of its detail.
func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	ok := len(errs) == len(want)
	for i := 0; ok && i < len(errs); i++ {
		typ, rest, _ := strings.Cut(want[i], " ")
		fld, detail, _ := strings.Cut(rest, ": ")
		e := errs[i]
		ok = string(e.Type) == typ && e.Field == fld && strings.Contains(e.ErrorBody()+": "+e.Detail, detail)
	}
	if !ok {
		var got []string
		for _, e := range errs {
			got = append(got, string(e.Type)+" "+e.Error())
		}
		t.Fatalf("got errors:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestValidateAcceptsTheGizmosPolicy(t *testing.T) {
	f := mustFixture(t, "gizmos")
	assertErrors(t, Validate(f.crd, f.policy), nil)
}
