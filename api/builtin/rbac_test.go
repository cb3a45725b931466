package builtin

import (
	"reflect"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rbacKinds are the RBAC resources: kind, plural, namespaced, columns
// (the NAME column the Table adds first is not among them).
var rbacKinds = []struct {
	kind, plural string
	namespaced   bool
	columns      []string
}{
	{"Role", "roles", true, []string{"Created At"}},
	{"ClusterRole", "clusterroles", false, []string{"Created At"}},
	{"RoleBinding", "rolebindings", true, []string{"Role", "Age", "Users", "Groups", "ServiceAccounts"}},
	{"ClusterRoleBinding", "clusterrolebindings", false, []string{"Role", "Age", "Users", "Groups", "ServiceAccounts"}},
}

func TestRBACResourcesNaming(t *testing.T) {
	for _, k := range rbacKinds {
		t.Run(k.plural, func(t *testing.T) {
			r := mustGroupResource(t, rbacv1.GroupName, k.plural)
			if r.Version != "v1" || r.Kind != k.kind || r.ListKind != k.kind+"List" || r.Singular != strings.ToLower(k.kind) {
				t.Errorf("naming = %s %s %s %s", r.Version, r.Kind, r.ListKind, r.Singular)
			}
			if r.Namespaced != k.namespaced || r.ShortNames != nil || r.Categories != nil || r.Verbs != nil {
				t.Errorf("namespaced %v, short names %v, categories %v, verbs %v", r.Namespaced, r.ShortNames, r.Categories, r.Verbs)
			}
			if got := r.GoType().Name(); got != k.kind {
				t.Errorf("New() is a %s", got)
			}
			if got := columnNames(r); !reflect.DeepEqual(got, k.columns) {
				t.Errorf("columns = %q, want %q", got, k.columns)
			}
			if got := r.Prefix(""); got != "/registry/rbac.authorization.k8s.io/"+k.plural+"/" {
				t.Errorf("prefix %q", got)
			}
		})
	}
}

func TestRBACTableColumns(t *testing.T) {
	roles := mustResource(t, "roles")
	if got := roles.TableColumns(); len(got) != 2 || got[0].Name != "Name" || got[1].Name != "Created At" || got[1].Type != "date" {
		t.Fatalf("role columns %+v: want kube's default NAME, CREATED AT", got)
	}
	created := metav1.NewTime(time.Date(2025, 2, 28, 12, 0, 0, 0, time.FixedZone("x", 3600)))
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", CreationTimestamp: created}}
	if got := cell(t, roles, "Created At", role); got != "2025-02-28T11:00:00Z" {
		t.Errorf("created at %q", got)
	}

	rb := mustResource(t, "rolebindings")
	cols := rb.TableColumns()
	var wide []string
	for _, c := range cols {
		if c.Priority == 1 {
			wide = append(wide, c.Name)
		}
	}
	if len(cols) != 6 || cols[2].Name != "Age" || !reflect.DeepEqual(wide, []string{"Users", "Groups", "ServiceAccounts"}) {
		t.Fatalf("binding columns %+v", cols)
	}
	b := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: metav1.NewTime(fixedNow.Add(-2 * time.Hour))},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{
			{Kind: "User", Name: "alice"}, {Kind: "Group", Name: "devs"}, {Kind: "User", Name: "bob"},
			{Kind: "ServiceAccount", Namespace: "ns", Name: "sa"}, {Kind: "ServiceAccount", Name: "local"},
		},
	}
	cells := rb.TableCells(mustMap(t, b), fixedNow)
	want := []any{"b", "ClusterRole/view", "120m", "alice, bob", "devs", "ns/sa, /local"}
	if !reflect.DeepEqual(cells, want) {
		t.Errorf("cells %q, want %q", cells, want)
	}
}

func TestRBACNames(t *testing.T) {
	r := mustResource(t, "clusterroles")
	for _, ok := range []string{"system:controller:foo", "a.b", "UPPER", "with space"} {
		if msgs := r.ValidateName(ok, false); len(msgs) != 0 {
			t.Errorf("%q refused: %v", ok, msgs)
		}
	}
	for _, bad := range []string{".", "..", "a/b", "a%b"} {
		if msgs := r.ValidateName(bad, false); len(msgs) == 0 {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRoleValidation(t *testing.T) {
	tests := []struct {
		name  string
		rules []rbacv1.PolicyRule
		want  errs
	}{
		{"ok", []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}, errs{}},
		{"no verbs", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}, errs{"FieldValueRequired rules[0].verbs"}},
		{"no groups, no resources", []rbacv1.PolicyRule{{Verbs: []string{"get"}}}, errs{"FieldValueRequired rules[0].apiGroups", "FieldValueRequired rules[0].resources"}},
		{"non-resource URL in a namespace", []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}, errs{"FieldValueInvalid rules[0].nonResourceURLs"}},
	}
	r := mustResource(t, "roles")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}, Rules: tt.rules}
			checkErrs(t, r.GetStrategy().Validate(role), tt.want)
		})
	}
	role := &rbacv1.Role{Rules: tests[3].rules}
	got := r.GetStrategy().Validate(role)
	if len(got) != 1 || got[0].Detail != "namespaced rules cannot apply to non-resource URLs" {
		t.Errorf("message %v", got)
	}
}

func TestClusterRoleValidation(t *testing.T) {
	tests := []struct {
		name string
		role rbacv1.ClusterRole
		want errs
	}{
		{"non-resource URLs", rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api/*"}}}}, errs{}},
		{"both kinds of rule", rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}, Resources: []string{"pods"}}}}, errs{"FieldValueInvalid rules[0].nonResourceURLs"}},
		{"aggregation without selectors", rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{}}, errs{"FieldValueRequired aggregationRule.clusterRoleSelectors"}},
		{"aggregation", rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"rbac.example.com/aggregate-to-edit": "true"}}}}}, errs{}},
		{"bad selector", rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}}}}},
			errs{"FieldValueInvalid aggregationRule.clusterRoleSelectors[0]", "FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator"}},
	}
	r := mustResource(t, "clusterroles")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, r.GetStrategy().Validate(&tt.role), tt.want)
		})
	}
}

// TestClusterRoleUpdateKeepsStoredSelectorValues: kube lets an update
// keep a selector label value the stored role had, but still refuses the
// selector it cannot parse into one ("invalid label selector.").
func TestClusterRoleUpdateKeepsStoredSelectorValues(t *testing.T) {
	r := mustResource(t, "clusterroles")
	bad := func() *rbacv1.ClusterRole {
		sel := metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"not valid!"}}}}
		return &rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{sel}}}
	}
	checkErrs(t, r.GetStrategy().Validate(bad()), errs{
		"FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]",
		"FieldValueInvalid aggregationRule.clusterRoleSelectors[0]",
	})
	checkErrs(t, r.GetStrategy().ValidateUpdate(bad(), bad()), errs{"FieldValueInvalid aggregationRule.clusterRoleSelectors[0]"})
	checkErrs(t, r.GetStrategy().ValidateUpdate(bad(), &rbacv1.ClusterRole{}), errs{
		"FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]",
		"FieldValueInvalid aggregationRule.clusterRoleSelectors[0]",
	})
}

func TestBindingDefaults(t *testing.T) {
	b := &rbacv1.RoleBinding{
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "u"}, {Kind: "Group", Name: "g"}, {Kind: "ServiceAccount", Name: "sa"}},
	}
	st := mustResource(t, "rolebindings").GetStrategy()
	st.PrepareForCreate(b)
	if b.RoleRef.APIGroup != rbacv1.GroupName || b.Subjects[0].APIGroup != rbacv1.GroupName || b.Subjects[1].APIGroup != rbacv1.GroupName || b.Subjects[2].APIGroup != "" {
		t.Errorf("defaults: %+v", b)
	}
	if errs := st.Validate(b); len(errs) != 0 {
		t.Errorf("defaulted binding refused: %v", errs)
	}
}

func TestRoleBindingValidation(t *testing.T) {
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}
	tests := []struct {
		name     string
		ref      rbacv1.RoleRef
		subjects []rbacv1.Subject
		want     errs
	}{
		{"ok", ref, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa"}, {Kind: "User", APIGroup: rbacv1.GroupName, Name: "u"}}, errs{}},
		{"cluster role", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "c"}, nil, errs{}},
		{"bad ref", rbacv1.RoleRef{APIGroup: "example.com", Kind: "Secret"}, nil, errs{"FieldValueNotSupported roleRef.apiGroup", "FieldValueNotSupported roleRef.kind", "FieldValueRequired roleRef.name"}},
		{"ref name", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "a/b"}, nil, errs{"FieldValueInvalid roleRef.name"}},
		{"subject kind", ref, []rbacv1.Subject{{Kind: "Robot", Name: "r"}}, errs{"FieldValueNotSupported subjects[0].kind"}},
		{"subject name", ref, []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName}}, errs{"FieldValueRequired subjects[0].name"}},
		{"user api group", ref, []rbacv1.Subject{{Kind: "User", APIGroup: "v1", Name: "u"}}, errs{"FieldValueNotSupported subjects[0].apiGroup"}},
		{"service account api group", ref, []rbacv1.Subject{{Kind: "ServiceAccount", APIGroup: rbacv1.GroupName, Name: "sa"}}, errs{"FieldValueNotSupported subjects[0].apiGroup"}},
		{"service account name", ref, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "Not_DNS"}}, errs{"FieldValueInvalid subjects[0].name"}},
	}
	r := mustResource(t, "rolebindings")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &rbacv1.RoleBinding{RoleRef: tt.ref, Subjects: tt.subjects}
			checkErrs(t, r.GetStrategy().Validate(b), tt.want)
		})
	}
}

func TestClusterRoleBindingValidation(t *testing.T) {
	r := mustResource(t, "clusterrolebindings")
	b := &rbacv1.ClusterRoleBinding{
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa"}},
	}
	got := r.GetStrategy().Validate(b)
	checkErrs(t, got, errs{"FieldValueNotSupported roleRef.kind", "FieldValueRequired subjects[0].namespace"})
	if msg := got.ToAggregate().Error(); !strings.Contains(msg, `roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`) {
		t.Errorf("message %q", msg)
	}
}

func TestRoleRefImmutable(t *testing.T) {
	r := mustResource(t, "rolebindings")
	old := &rbacv1.RoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "a"}}
	same := old.DeepCopy()
	same.Subjects = []rbacv1.Subject{{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "g"}}
	if errs := r.GetStrategy().ValidateUpdate(same, old); len(errs) != 0 {
		t.Errorf("changing subjects refused: %v", errs)
	}
	changed := old.DeepCopy()
	changed.RoleRef.Name = "b"
	got := r.GetStrategy().ValidateUpdate(changed, old)
	if len(got) != 1 || got[0].Type != field.ErrorTypeInvalid || got[0].Field != "roleRef" || got[0].Detail != "cannot change roleRef" {
		t.Errorf("changing roleRef: %v", got)
	}
	crb := mustResource(t, "clusterrolebindings")
	oldC := &rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "a"}}
	newC := oldC.DeepCopy()
	newC.RoleRef.Name = "b"
	if got := crb.GetStrategy().ValidateUpdate(newC, oldC); len(got) != 1 || got[0].Detail != "cannot change roleRef" {
		t.Errorf("changing a cluster role binding's roleRef: %v", got)
	}
}
