package apiextensions_test

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
)

// now is the registry's clock in the tests.
var now = time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)

// schema is a structural schema with spec.replicas.
func schema() *apiextensionsv1.CustomResourceValidation {
	return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"replicas": {Type: "integer"},
			}},
		},
	}}
}

// version is a served version with the structural schema.
func version(name string, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
	return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage, Schema: schema()}
}

// newCRD is a valid CRD of foos.example.com, before defaulting.
func newCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foos.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group:    "example.com",
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Kind: "Foo"},
			Scope:    apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{version("v1", true)},
		},
	}
}

// created is newCRD changed by edit and prepared for create.
func created(edit func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
	c := newCRD()
	if edit != nil {
		edit(c)
	}
	apiextensions.CRDResource().GetStrategy().PrepareForCreate(c)
	return c
}

// stored is newCRD as the registry passes it as the old object of an
// update (and sets on the new one): created, with a resourceVersion.
func stored() *apiextensionsv1.CustomResourceDefinition {
	c := created(nil)
	c.ResourceVersion = "7"
	return c
}

// errs renders errors as sorted "Type field: detail" strings.
func errs(list field.ErrorList) []string {
	out := []string{}
	for _, e := range list {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.Detail)
	}
	sort.Strings(out)
	return out
}

// checkErrs fails unless got is want, each entry a prefix of the error's
// "Type field: detail".
func checkErrs(t *testing.T, got field.ErrorList, want ...string) {
	t.Helper()
	g := errs(got)
	sort.Strings(want)
	ok := len(g) == len(want)
	for i := 0; ok && i < len(g); i++ {
		ok = strings.HasPrefix(g[i], want[i])
	}
	if !ok {
		t.Errorf("errors:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestCRDResource(t *testing.T) {
	r := apiextensions.CRDResource()
	if r.GroupVersionKind().String() != "apiextensions.k8s.io/v1, Kind=CustomResourceDefinition" || r.ListKind != "CustomResourceDefinitionList" {
		t.Errorf("gvk = %v, list kind %q", r.GroupVersionKind(), r.ListKind)
	}
	if r.Plural != "customresourcedefinitions" || r.Singular != "customresourcedefinition" || r.Namespaced {
		t.Errorf("plural %q, singular %q, namespaced %v", r.Plural, r.Singular, r.Namespaced)
	}
	if !slices.Equal(r.ShortNames, []string{"crd", "crds"}) || !slices.Equal(r.Categories, []string{"api-extensions"}) {
		t.Errorf("short names %v, categories %v", r.ShortNames, r.Categories)
	}
	if _, ok := r.New().(*apiextensionsv1.CustomResourceDefinition); !ok || !r.HasSubresource("status") {
		t.Errorf("New() = %T, status subresource %v", r.New(), r.HasSubresource("status"))
	}
	if len(r.ValidateName("Foos.example.com", false)) == 0 || len(r.ValidateName("foos.example.com", false)) != 0 {
		t.Errorf("ValidateName is not a DNS subdomain check")
	}
}

func TestCRDTableColumns(t *testing.T) {
	var got []string
	for _, c := range apiextensions.CRDResource().TableColumns() {
		got = append(got, c.Name+"/"+c.Type+"/"+c.Format+"/"+string(rune('0'+c.Priority)))
	}
	want := []string{"Name/string/name/0", "Scope/string//0", "Versions/string//0", "Created At/date//0",
		"Group/string//1", "Kind/string//1", "ShortNames/string//1", "Established/boolean//1"}
	if !slices.Equal(got, want) {
		t.Errorf("columns = %v, want %v", got, want)
	}
}

func TestCRDTableCells(t *testing.T) {
	c := created(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.CreationTimestamp = metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)))
		c.Spec.Names.ShortNames = []string{"f", "fo"}
		c.Spec.Versions = append(c.Spec.Versions, version("v2", false), version("a1", false))
		c.Spec.Versions[2].Served = false
	})
	c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	got := apiextensions.CRDResource().TableCells(mustMap(t, c), now)
	want := []any{"foos.example.com", "Namespaced", "v1(storage),v2", "2025-01-02T02:04:05Z", "example.com", "Foo", "f,fo", true}
	if !slices.Equal(got, want) {
		t.Errorf("cells = %#v, want %#v", got, want)
	}
	bare := apiextensions.CRDResource().TableCells(map[string]any{}, now)
	if want := []any{"", "", "", "0001-01-01T00:00:00Z", "", "", "", false}; !slices.Equal(bare, want) {
		t.Errorf("cells of an empty object = %#v, want %#v", bare, want)
	}
}

func TestCRDValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*apiextensionsv1.CustomResourceDefinition)
		want []string
	}{
		{"valid", nil, nil},
		{"name not plural.group", func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "bars.example.com" },
			[]string{`FieldValueInvalid metadata.name: must be spec.names.plural+"."+spec.group`}},
		{"metadata errors are the registry's", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels = map[string]string{"bad key!": "x"}
		}, nil},
		{"two storage versions", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions = append(c.Spec.Versions, version("v2", true))
		}, []string{
			"FieldValueInvalid spec.versions: must have exactly one version marked as storage version",
			"FieldValueInvalid status.storedVersions: must have the storage version v2",
		}},
		{"no storage version", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Storage = false }, []string{
			"FieldValueInvalid spec.versions: must have exactly one version marked as storage version",
			"FieldValueInvalid status.storedVersions: must have at least one stored version",
		}},
		{"no versions", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions = nil }, []string{
			"FieldValueInvalid spec.versions: must have exactly one version marked as storage version",
			"FieldValueInvalid status.storedVersions: must have at least one stored version",
		}},
		{"no schema", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil },
			[]string{"FieldValueRequired spec.versions[0].schema.openAPIV3Schema: "}},
		{"empty schema", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema = &apiextensionsv1.CustomResourceValidation{}
		}, []string{"FieldValueRequired spec.versions[0].schema.openAPIV3Schema: "}},
		{"non-structural: missing type", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{}
		}, []string{"FieldValueRequired spec.validation.openAPIV3Schema.properties[spec].type: must not be empty for specified object fields"}},
		{"per-version schemas keep their path", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions = append(c.Spec.Versions, version("v2", false))
			c.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{}
		}, []string{"FieldValueRequired spec.versions[1].schema.openAPIV3Schema.properties[spec].type: must not be empty for specified object fields"}},
		{"CEL rule does not compile", func(c *apiextensionsv1.CustomResourceDefinition) {
			spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.replicas >"}}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}, []string{"FieldValueInvalid spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:16: Syntax error"}},
		{"CEL rule compiles", func(c *apiextensionsv1.CustomResourceDefinition) {
			spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "!has(self.replicas) || self.replicas >= 0"}}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}, nil},
		{"bad scope and group", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Name, c.Spec.Group, c.Spec.Scope = "foos.example", "example", "Global"
		}, []string{
			"FieldValueInvalid spec.group: should be a domain with at least one dot",
			`FieldValueNotSupported spec.scope: supported values: "Cluster", "Namespaced"`,
		}},
	}
	s := apiextensions.CRDResource().GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(created(tt.edit)), tt.want...)
		})
	}
}

func TestCRDValidateMessage(t *testing.T) {
	got := apiextensions.CRDResource().GetStrategy().Validate(created(func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "bars.example.com" }))
	want := `metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group`
	if len(got) != 1 || got[0].Error() != want {
		t.Errorf("errors = %v, want %q", got, want)
	}
}

func TestCRDPrepareForCreate(t *testing.T) {
	c := created(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Status.StoredVersions = []string{"v0"}
		c.Status.AcceptedNames = c.Spec.Names
		c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
		c.Spec.Versions = append([]apiextensionsv1.CustomResourceDefinitionVersion{version("v1beta1", false)}, c.Spec.Versions...)
	})
	if !slices.Equal(c.Status.StoredVersions, []string{"v1"}) || len(c.Status.Conditions) != 0 || c.Status.AcceptedNames.Plural != "" {
		t.Errorf("status = %+v, want only storedVersions [v1]", c.Status)
	}
	if c.Spec.Conversion == nil || c.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("conversion = %+v, want strategy None", c.Spec.Conversion)
	}
	if c.Spec.Names.Singular != "foo" || c.Spec.Names.ListKind != "FooList" {
		t.Errorf("names = %+v, want singular and listKind defaulted", c.Spec.Names)
	}
}

func TestCRDPrepareForUpdate(t *testing.T) {
	tests := []struct {
		name     string
		versions []apiextensionsv1.CustomResourceDefinitionVersion
		want     []string
	}{
		{"same storage version", []apiextensionsv1.CustomResourceDefinitionVersion{version("v1", true), version("v2", false)}, []string{"v1"}},
		{"new storage version", []apiextensionsv1.CustomResourceDefinitionVersion{version("v1", false), version("v2", true)}, []string{"v1", "v2"}},
		{"no storage version", []apiextensionsv1.CustomResourceDefinitionVersion{version("v1", false)}, []string{"v1"}},
	}
	s := apiextensions.CRDResource().GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := created(nil)
			c := old.DeepCopy()
			c.Spec.Versions = tt.versions
			c.Status = apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v9"}}
			s.PrepareForUpdate(c, old)
			if !slices.Equal(c.Status.StoredVersions, tt.want) {
				t.Errorf("storedVersions = %v, want %v", c.Status.StoredVersions, tt.want)
			}
			if !slices.Equal(old.Status.StoredVersions, []string{"v1"}) {
				t.Errorf("old storedVersions changed to %v", old.Status.StoredVersions)
			}
		})
	}
}

func TestCRDValidateUpdate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*apiextensionsv1.CustomResourceDefinition)
		want []string
	}{
		{"valid", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.ShortNames = []string{"f"} }, nil},
		{"group is immutable", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Group = "example.org" },
			[]string{"FieldValueInvalid spec.group: field is immutable"}},
		{"a stored version stays", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{version("v2", true)}
		}, []string{"FieldValueInvalid status.storedVersions[0]: missing from spec.versions; v1 was previously a storage version"}},
		{"invalid label, which the registry reports too, as kube's does", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Labels = map[string]string{"bad key!": "x"}
		}, []string{"FieldValueInvalid metadata.labels: name part must consist of"}},
	}
	s := apiextensions.CRDResource().GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := stored()
			c := old.DeepCopy()
			tt.edit(c)
			s.PrepareForUpdate(c, old)
			checkErrs(t, s.ValidateUpdate(c, old), tt.want...)
		})
	}
}

func TestCRDStatusStrategy(t *testing.T) {
	s := apiextensions.CRDResource().Subresource("status").GetStrategy()
	old := stored()

	c := old.DeepCopy()
	c.Status.StoredVersions = nil
	s.PrepareForUpdate(c, old)
	if !slices.Equal(c.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("empty storedVersions defaulted to %v, want [v1]", c.Status.StoredVersions)
	}

	c = old.DeepCopy()
	c.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "Foos", Singular: "foo", Kind: "Foo", ListKind: "FooList"}
	s.PrepareForUpdate(c, old)
	checkErrs(t, s.ValidateUpdate(c, old),
		"FieldValueInvalid status.acceptedNames.plural: a DNS-1035 label must consist of lower case alphanumeric characters")

	c = old.DeepCopy()
	c.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList"}
	checkErrs(t, s.ValidateUpdate(c, old))
}

func TestCRDOddInput(t *testing.T) {
	odd := map[string]func(*apiextensionsv1.CustomResourceDefinition){
		"empty": func(c *apiextensionsv1.CustomResourceDefinition) { *c = apiextensionsv1.CustomResourceDefinition{} },
		"nil items": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Items = &apiextensionsv1.JSONSchemaPropsOrArray{}
		},
		"array items": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Type = "array"
		},
		"webhook without config": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		},
		"nil additionalProperties": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{}
		},
		"bad default": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Default = &apiextensionsv1.JSON{Raw: []byte("{")}
		},
	}
	s := apiextensions.CRDResource().GetStrategy()
	for name, edit := range odd {
		t.Run(name, func(t *testing.T) {
			c := created(edit)
			got := s.Validate(c)
			for _, e := range got {
				if e.Type == field.ErrorTypeInternal && strings.Contains(e.Detail, "panicked") {
					t.Errorf("validation panicked: %v", e)
				}
			}
			s.PrepareForUpdate(c.DeepCopy(), c)
			_ = s.ValidateUpdate(c.DeepCopy(), c)
		})
	}
}

// fixture is a registry serving CRDs over an in-memory store.
type fixture struct {
	reg *registry.Registry
	res *resource.Resource
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	reg, _ := registrytest.NewRegistry(t, registry.Options{Now: func() time.Time { return now }})
	res := apiextensions.CRDResource()
	reg.Register(res)
	return &fixture{reg: reg, res: res}
}

func (f *fixture) create(t *testing.T, c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	r, err := f.reg.Store(f.res).Create(context.Background(), "", c, registry.WriteOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return f.decode(t, r.Data)
}

func (f *fixture) update(t *testing.T, sub string, c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	s := f.reg.Store(f.res)
	if sub != "" {
		s = f.reg.Subresource(f.res, f.res.Subresource(sub))
	}
	r, err := s.Update(context.Background(), "", c.Name, c, registry.WriteOptions{})
	if err != nil {
		t.Fatalf("update %s: %v", sub, err)
	}
	return f.decode(t, r.Data)
}

func (f *fixture) decode(t *testing.T, data []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	obj, err := codec.DecodeStored(f.res, data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return obj.(*apiextensionsv1.CustomResourceDefinition)
}

func TestCRDGenerationThroughRegistry(t *testing.T) {
	f := newFixture(t)
	c := f.create(t, newCRD())
	if c.Generation != 1 || !slices.Equal(c.Status.StoredVersions, []string{"v1"}) {
		t.Fatalf("created: generation %d, storedVersions %v", c.Generation, c.Status.StoredVersions)
	}
	c.Labels = map[string]string{"a": "b"}
	if c = f.update(t, "", c); c.Generation != 1 {
		t.Errorf("metadata change: generation %d, want 1", c.Generation)
	}
	c.Status.AcceptedNames = c.Spec.Names
	if c = f.update(t, "status", c); c.Generation != 1 || c.Status.AcceptedNames.Plural != "foos" {
		t.Errorf("status change: generation %d, acceptedNames %+v", c.Generation, c.Status.AcceptedNames)
	}
	c.Spec.Versions = append(c.Spec.Versions, version("v2", false))
	c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = false, true
	if c = f.update(t, "", c); c.Generation != 2 || !slices.Equal(c.Status.StoredVersions, []string{"v1", "v2"}) {
		t.Errorf("spec change: generation %d, storedVersions %v", c.Generation, c.Status.StoredVersions)
	}
}

func TestCRDInvalidThroughRegistry(t *testing.T) {
	f := newFixture(t)
	c := newCRD()
	c.Name = "bars.example.com"
	_, err := f.reg.Store(f.res).Create(context.Background(), "", c, registry.WriteOptions{})
	want := `CustomResourceDefinition.apiextensions.k8s.io "bars.example.com" is invalid: metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("create: %v, want %s", err, want)
	}
}

// mustMap is obj as the API layer sees it after JSON decoding.
func mustMap(t *testing.T, obj any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return m
}
