package rbac

import (
	"context"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var widgetsRule = rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}

func hasRule(rules []rbacv1.PolicyRule, want rbacv1.PolicyRule) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, want) })
}

// bootstrapped returns a registry holding the bootstrap policy.
func bootstrapped(t *testing.T) *Aggregator {
	t.Helper()
	reg, _ := newTestRegistry(t)
	if err := New(reg, testLogger(t)).Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	return NewAggregator(reg, testLogger(t))
}

// TestSyncFillsAdminEditView: view holds the rules of
// system:aggregate-to-view; edit those and its own; admin all of them.
func TestSyncFillsAdminEditView(t *testing.T) {
	a := bootstrapped(t)
	ctx := context.Background()
	for range 3 { // edit aggregates view, admin aggregates edit
		if err := a.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	view, edit, admin := mustGetRole(t, a.reg, "view"), mustGetRole(t, a.reg, "edit"), mustGetRole(t, a.reg, "admin")
	if want := mustGetRole(t, a.reg, "system:aggregate-to-view").Rules; !equality.Semantic.DeepEqual(view.Rules, want) {
		t.Errorf("view rules %v, want %v", view.Rules, want)
	}
	for _, tc := range []struct {
		role                  *rbacv1.ClusterRole
		verb, group, resource string
		want                  bool
	}{
		{view, "list", "", "configmaps", true},
		{view, "get", "", "secrets", false},
		{edit, "list", "", "configmaps", true},
		{edit, "create", "", "secrets", true},
		{edit, "create", "rbac.authorization.k8s.io", "rolebindings", false},
		{admin, "list", "", "configmaps", true},
		{admin, "delete", "", "secrets", true},
		{admin, "create", "rbac.authorization.k8s.io", "rolebindings", true},
		{admin, "create", "authorization.k8s.io", "localsubjectaccessreviews", true},
	} {
		if got := allows(tc.role.Rules, tc.verb, tc.group, tc.resource); got != tc.want {
			t.Errorf("%s allows %s %s/%s = %v, want %v", tc.role.Name, tc.verb, tc.group, tc.resource, got, tc.want)
		}
	}
}

// TestAggregationFollowsLabels: the aggregation controller gives view the
// rules of a role labelled aggregate-to-view within a second or so, and
// takes them back when the label goes.
func TestAggregationFollowsLabels(t *testing.T) {
	a := bootstrapped(t)
	runInBackground(t, a.Run)
	mustCreateRole(t, a.reg, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-reader", Labels: map[string]string{AggregateToView: "true"}},
		Rules:      []rbacv1.PolicyRule{widgetsRule},
	})
	waitFor(t, "view to gain the widgets rule", func() bool { return hasRule(mustGetRole(t, a.reg, "view").Rules, widgetsRule) })
	waitFor(t, "admin to gain it through edit", func() bool { return hasRule(mustGetRole(t, a.reg, "admin").Rules, widgetsRule) })

	r := mustGetRole(t, a.reg, "widget-reader")
	delete(r.Labels, AggregateToView)
	mustUpdateRole(t, a.reg, r)
	waitFor(t, "view to lose the widgets rule", func() bool { return !hasRule(mustGetRole(t, a.reg, "view").Rules, widgetsRule) })
	waitFor(t, "admin to lose it", func() bool { return !hasRule(mustGetRole(t, a.reg, "admin").Rules, widgetsRule) })
}

// TestAggregationOverwritesRulesSetByHand: the rules of an aggregated
// role are the controller's.
func TestAggregationOverwritesRulesSetByHand(t *testing.T) {
	a := bootstrapped(t)
	runInBackground(t, a.Run)
	waitFor(t, "view aggregated", func() bool { return len(mustGetRole(t, a.reg, "view").Rules) > 0 })
	view := mustGetRole(t, a.reg, "view")
	view.Rules = append(view.Rules, widgetsRule)
	mustUpdateRole(t, a.reg, view)
	waitFor(t, "the hand-set rule to go", func() bool { return !hasRule(mustGetRole(t, a.reg, "view").Rules, widgetsRule) })
}

// TestAggregatedRulesOrder: selector by selector, roles in name order,
// each rule once, the role itself left out.
func TestAggregatedRulesOrder(t *testing.T) {
	r1 := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"a"}}
	r2 := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"b"}}
	r3 := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"c"}}
	agg := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "agg", Labels: map[string]string{"x": "true"}},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"y": "true"}},
			{MatchLabels: map[string]string{"x": "true"}},
		}},
		Rules: []rbacv1.PolicyRule{r3},
	}
	roles := []*rbacv1.ClusterRole{
		agg,
		{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"x": "true"}}, Rules: []rbacv1.PolicyRule{r1, r2}},
		{ObjectMeta: metav1.ObjectMeta{Name: "q", Labels: map[string]string{"x": "true", "y": "true"}}, Rules: []rbacv1.PolicyRule{r2}},
		{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{r3}},
	}
	got, err := aggregatedRules(agg, roles)
	if err != nil {
		t.Fatal(err)
	}
	if want := []rbacv1.PolicyRule{r2, r1}; !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("aggregated rules %v, want %v", got, want)
	}
}
