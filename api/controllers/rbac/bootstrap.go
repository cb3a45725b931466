package rbac

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/raftapi/raftapi/api/registry"
)

// retryInterval is how often the Controller looks at its node's
// leadership, and retries a reconciliation that failed.
const retryInterval = 500 * time.Millisecond

// Controller installs and reconciles the bootstrap policy (see the
// package comment) on the leader.
type Controller struct {
	reg      *registry.Registry
	logger   *slog.Logger
	roles    []rbacv1.ClusterRole
	bindings []rbacv1.ClusterRoleBinding
	// done is set once the policy is known installed: reconciled by this
	// node, or seen whole in its state.
	done atomic.Bool
	// lastErr is the last failure logged, so that a failure repeated
	// every retry is logged once.
	lastErr string
}

// New returns the bootstrap-policy controller of the RBAC resources of
// reg. logger receives what it creates and updates.
func New(reg *registry.Registry, logger *slog.Logger) *Controller {
	if logger == nil {
		logger = slog.Default()
	}
	return &Controller{reg: reg, logger: logger, roles: ClusterRoles(), bindings: ClusterRoleBindings()}
}

// Run reconciles the policy once per term of leadership of this node,
// retrying until a pass succeeds, until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	t := time.NewTicker(retryInterval)
	defer t.Stop()
	reconciled := false
	for {
		switch {
		case !c.reg.Storage().IsLeader():
			reconciled = false
		case !reconciled:
			reconciled = c.reconcileOnce(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reconcileOnce runs one reconciliation and reports whether it succeeded,
// logging a failure when it differs from the previous one.
func (c *Controller) reconcileOnce(ctx context.Context) bool {
	err := c.Reconcile(ctx)
	if err == nil {
		c.lastErr = ""
		c.done.Store(true)
		return true
	}
	if ctx.Err() == nil && err.Error() != c.lastErr {
		c.lastErr = err.Error()
		c.logger.Warn("rbac: unable to reconcile the bootstrap policy, retrying", "err", err)
	}
	return false
}

// Reconcile reconciles every ClusterRole, then every ClusterRoleBinding,
// of the bootstrap policy, as kube-apiserver's rbac/bootstrap-roles hook
// does: each object is tried even when another fails; the error joins
// the failures.
func (c *Controller) Reconcile(ctx context.Context) error {
	ctx = loopback(ctx)
	roles, err := storeOf(c.reg, clusterRolesGVR)
	if err != nil {
		return err
	}
	bindings, err := storeOf(c.reg, clusterRoleBindingsGVR)
	if err != nil {
		return err
	}
	var errs []error
	for i := range c.roles {
		errs = append(errs, c.reconcileRole(roleClient{ctx, roles}, &c.roles[i]))
	}
	for i := range c.bindings {
		errs = append(errs, c.reconcileBinding(bindingClient{ctx, bindings}, &c.bindings[i]))
	}
	return errors.Join(errs...)
}

// Ready returns nil once the bootstrap policy is installed: this node
// reconciled it, or (a follower) holds every object of it in its state.
// Otherwise it returns ErrNotFinished, or ErrNotServed.
func (c *Controller) Ready() error {
	if c.done.Load() {
		return nil
	}
	if err := c.present(context.Background()); err != nil {
		return err
	}
	c.done.Store(true)
	return nil
}

// present returns nil when this node's state holds every object of the
// policy.
func (c *Controller) present(ctx context.Context) error {
	roles, err := storeOf(c.reg, clusterRolesGVR)
	if err != nil {
		return err
	}
	bindings, err := storeOf(c.reg, clusterRoleBindingsGVR)
	if err != nil {
		return err
	}
	local := registry.GetOptions{ResourceVersion: "0"}
	for _, r := range c.roles {
		if _, err := roles.Get(ctx, "", r.Name, local); err != nil {
			return fmt.Errorf("%w: clusterrole %s: %w", ErrNotFinished, r.Name, err)
		}
	}
	for _, b := range c.bindings {
		if _, err := bindings.Get(ctx, "", b.Name, local); err != nil {
			return fmt.Errorf("%w: clusterrolebinding %s: %w", ErrNotFinished, b.Name, err)
		}
	}
	return nil
}
