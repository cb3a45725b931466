package builtin

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func lease(spec coordinationv1.LeaseSpec) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "kube-system"}, Spec: spec}
}

func strategyPtr(s string) *coordinationv1.CoordinatedLeaseStrategy {
	return ptr(coordinationv1.CoordinatedLeaseStrategy(s))
}

func TestLeaseValidate(t *testing.T) {
	tests := []struct {
		name string
		spec coordinationv1.LeaseSpec
		want errs
	}{
		{"empty", coordinationv1.LeaseSpec{}, nil},
		{"valid", coordinationv1.LeaseSpec{HolderIdentity: ptr("me"), LeaseDurationSeconds: ptr(int32(15)), LeaseTransitions: ptr(int32(0)), RenewTime: &metav1.MicroTime{}}, nil},
		{"zero duration", coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr(int32(0))}, errs{"FieldValueInvalid spec.leaseDurationSeconds"}},
		{"negative transitions", coordinationv1.LeaseSpec{LeaseTransitions: ptr(int32(-1))}, errs{"FieldValueInvalid spec.leaseTransitions"}},
		{"built-in strategy", coordinationv1.LeaseSpec{Strategy: strategyPtr("OldestEmulationVersion"), PreferredHolder: ptr("me")}, nil},
		{"custom strategy", coordinationv1.LeaseSpec{Strategy: strategyPtr("example.com/mine")}, nil},
		{"unknown strategy", coordinationv1.LeaseSpec{Strategy: strategyPtr("Newest")}, errs{"FieldValueNotSupported spec.strategy.strategy"}},
		{"bad custom strategy", coordinationv1.LeaseSpec{Strategy: strategyPtr("a/b/c")}, errs{"FieldValueInvalid spec.strategy.strategy"}},
		{"preferredHolder without strategy", coordinationv1.LeaseSpec{PreferredHolder: ptr("me")}, errs{"FieldValueForbidden spec.preferredHolder"}},
		{"empty preferredHolder", coordinationv1.LeaseSpec{PreferredHolder: ptr("")}, nil},
	}
	s := mustResource(t, "leases").GetStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErrs(t, s.Validate(lease(tt.spec)), tt.want)
			checkErrs(t, s.ValidateUpdate(lease(tt.spec), lease(coordinationv1.LeaseSpec{})), tt.want)
		})
	}
}

func TestLeaseMessages(t *testing.T) {
	s := mustResource(t, "leases").GetStrategy()
	got := s.Validate(lease(coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr(int32(-3))}))
	if want := "spec.leaseDurationSeconds: Invalid value: -3: must be greater than 0"; len(got) != 1 || got[0].Error() != want {
		t.Errorf("errors = %v, want %q", got, want)
	}
}

func TestLeaseGatedFields(t *testing.T) {
	s := mustResource(t, "leases").GetStrategy()
	gated := coordinationv1.LeaseSpec{Strategy: strategyPtr("OldestEmulationVersion"), PreferredHolder: ptr("me"), HolderIdentity: ptr("me")}

	created := lease(gated)
	s.PrepareForCreate(created)
	if created.Spec.Strategy != nil || created.Spec.PreferredHolder != nil || created.Spec.HolderIdentity == nil {
		t.Errorf("create: spec = %+v", created.Spec)
	}

	updated := lease(gated)
	s.PrepareForUpdate(updated, lease(coordinationv1.LeaseSpec{}))
	if updated.Spec.Strategy != nil || updated.Spec.PreferredHolder != nil {
		t.Errorf("update of a lease without them: spec = %+v", updated.Spec)
	}

	kept := lease(gated)
	s.PrepareForUpdate(kept, lease(gated))
	if kept.Spec.Strategy == nil || kept.Spec.PreferredHolder == nil {
		t.Errorf("update of a lease with them: spec = %+v", kept.Spec)
	}
}

func TestLeaseColumns(t *testing.T) {
	r := mustResource(t, "leases")
	if got := cell(t, r, "Holder", lease(coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1")})); got != "node-1" {
		t.Errorf("Holder = %#v", got)
	}
	if got := cell(t, r, "Holder", lease(coordinationv1.LeaseSpec{})); got != "" {
		t.Errorf("Holder of no holder = %#v", got)
	}
	if len(r.Fields) != 0 {
		t.Errorf("fields %v", r.Fields)
	}
}
