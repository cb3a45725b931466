package builtin

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/resource"
)

func TestResourcesNaming(t *testing.T) {
	tests := []struct {
		group, kind, plural, singular string
		namespaced                    bool
		shortNames                    []string
		columns                       []string
	}{
		{"", "Namespace", "namespaces", "namespace", false, []string{"ns"}, []string{"Status"}},
		{"", "ConfigMap", "configmaps", "configmap", true, []string{"cm"}, []string{"Data"}},
		{"", "Secret", "secrets", "secret", true, nil, []string{"Type", "Data"}},
		{"", "ServiceAccount", "serviceaccounts", "serviceaccount", true, []string{"sa"}, []string{"Secrets"}},
		{"", "Event", "events", "event", true, []string{"ev"}, []string{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"}},
		{"events.k8s.io", "Event", "events", "event", true, []string{"ev"}, []string{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"}},
		{"coordination.k8s.io", "Lease", "leases", "lease", true, nil, []string{"Holder"}},
	}
	if got, want := len(Resources()), len(tests)+len(rbacKinds); got != want {
		t.Fatalf("Resources() has %d resources, want %d", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.group+"/"+tt.plural, func(t *testing.T) {
			r := mustGroupResource(t, tt.group, tt.plural)
			if r.Group != tt.group || r.Version != "v1" || r.Kind != tt.kind || r.ListKind != tt.kind+"List" || r.Singular != tt.singular {
				t.Errorf("naming = %s/%s %s %s %s", r.Group, r.Version, r.Kind, r.ListKind, r.Singular)
			}
			if r.Namespaced != tt.namespaced {
				t.Errorf("Namespaced = %v", r.Namespaced)
			}
			if !reflect.DeepEqual(r.ShortNames, tt.shortNames) || r.Categories != nil || r.Verbs != nil {
				t.Errorf("shortNames %v, categories %v, verbs %v", r.ShortNames, r.Categories, r.Verbs)
			}
			if got := r.GoType().Name(); got != tt.kind {
				t.Errorf("New() is a %s", got)
			}
			if got := r.GoListType().Name(); got != tt.kind+"List" {
				t.Errorf("NewList() is a %s", got)
			}
			if got := columnNames(r); !reflect.DeepEqual(got, tt.columns) {
				t.Errorf("columns = %q, want %q", got, tt.columns)
			}
			for _, c := range r.Columns {
				if c.Type != "string" || c.Description == "" || (c.Value == nil && c.Path == "") {
					t.Errorf("column %q: type %q, description %q, no cell", c.Name, c.Type, c.Description)
				}
			}
			if r.Strategy == nil || r.ValidateName == nil {
				t.Error("no strategy or name validation")
			}
		})
	}
}

func TestResourcesAreFresh(t *testing.T) {
	a, b := Resources(), Resources()
	for i := range a {
		if a[i] == b[i] {
			t.Fatalf("%s: same description returned twice", a[i].Plural)
		}
	}
	a[1].ShortNames[0] = "changed"
	if b[1].ShortNames[0] != "cm" {
		t.Error("changing one description changed another")
	}
}

func TestStrategyWrongType(t *testing.T) {
	s := mustResource(t, "secrets").GetStrategy()
	cm := &corev1.ConfigMap{}
	s.PrepareForCreate(cm)
	s.PrepareForUpdate(cm, cm)
	checkErrs(t, s.Validate(cm), errs{"InternalError kind"})
	checkErrs(t, s.ValidateUpdate(cm, cm), errs{"InternalError kind"})
	checkErrs(t, s.ValidateUpdate(&corev1.Secret{Type: corev1.SecretTypeOpaque}, cm), errs{"InternalError kind"})
}

func TestCanonicalizeIsOptional(t *testing.T) {
	type canonicalizer interface{ Canonicalize(runtime.Object) }
	for _, r := range Resources() {
		c, ok := r.Strategy.(canonicalizer)
		if !ok {
			t.Fatalf("%s: strategy has no Canonicalize", r.Plural)
		}
		c.Canonicalize(r.New()) // must not panic
	}
	var _ resource.Strategy = NamespaceStatusStrategy()
}
