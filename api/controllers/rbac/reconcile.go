package rbac

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
)

// reconcileRole creates the ClusterRole want, or adds what it lacks to
// the stored one unless that one is annotated autoupdate=false.
func (c *Controller) reconcileRole(client roleClient, want *rbacv1.ClusterRole) error {
	opts := reconciliation.ReconcileRoleOptions{
		Role:    reconciliation.ClusterRoleRuleOwner{ClusterRole: want.DeepCopy()},
		Client:  client,
		Confirm: true,
	}
	result, err := opts.Run()
	if err != nil {
		return fmt.Errorf("clusterrole.%s/%s: %w", rbacv1.GroupName, want.Name, err)
	}
	switch {
	case result.Protected && result.Operation != reconciliation.ReconcileNone:
		c.logger.Warn("rbac: skipped reconcile-protected clusterrole with missing permissions",
			"clusterrole", want.Name, "missing", fmt.Sprint(result.MissingRules))
	case result.Operation == reconciliation.ReconcileUpdate:
		c.logger.Info("rbac: updated clusterrole with additional permissions",
			"clusterrole", want.Name, "missing", fmt.Sprint(result.MissingRules))
	case result.Operation == reconciliation.ReconcileCreate:
		c.logger.Info("rbac: created clusterrole", "clusterrole", want.Name)
	}
	return nil
}

// reconcileBinding creates the ClusterRoleBinding want, or adds the
// subjects it lacks to the stored one unless that one is annotated
// autoupdate=false; a stored binding of another role is recreated.
func (c *Controller) reconcileBinding(client bindingClient, want *rbacv1.ClusterRoleBinding) error {
	opts := reconciliation.ReconcileRoleBindingOptions{
		RoleBinding: reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: want.DeepCopy()},
		Client:      client,
		Confirm:     true,
	}
	result, err := opts.Run()
	if err != nil {
		return fmt.Errorf("clusterrolebinding.%s/%s: %w", rbacv1.GroupName, want.Name, err)
	}
	switch {
	case result.Protected && result.Operation != reconciliation.ReconcileNone:
		c.logger.Warn("rbac: skipped reconcile-protected clusterrolebinding with missing subjects",
			"clusterrolebinding", want.Name, "missing", fmt.Sprint(result.MissingSubjects))
	case result.Operation == reconciliation.ReconcileUpdate:
		c.logger.Info("rbac: updated clusterrolebinding with additional subjects",
			"clusterrolebinding", want.Name, "missing", fmt.Sprint(result.MissingSubjects))
	case result.Operation == reconciliation.ReconcileCreate:
		c.logger.Info("rbac: created clusterrolebinding", "clusterrolebinding", want.Name)
	case result.Operation == reconciliation.ReconcileRecreate:
		c.logger.Info("rbac: recreated clusterrolebinding", "clusterrolebinding", want.Name)
	}
	return nil
}
