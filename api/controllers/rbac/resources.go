package rbac

import (
	"context"
	"errors"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/request"
)

// Errors of the package.
var (
	// ErrNotServed: the registry does not serve the RBAC resources.
	ErrNotServed = errors.New("rbac: the rbac.authorization.k8s.io/v1 resources are not served")
	// ErrNotFinished: the bootstrap policy is not installed yet.
	ErrNotFinished = errors.New("not finished")
)

// Managers the controllers' writes are recorded under in managedFields.
const (
	bootstrapManager   = "kube-apiserver"
	aggregationManager = "clusterrole-aggregation-controller"
)

var (
	clusterRolesGVR        = rbacv1.SchemeGroupVersion.WithResource("clusterroles")
	clusterRoleBindingsGVR = rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings")
)

// storeOf returns the registry store of the RBAC resource gvr.
func storeOf(reg *registry.Registry, gvr schema.GroupVersionResource) (*registry.Store, error) {
	res := reg.Resources().Get(gvr)
	if res == nil {
		return nil, fmt.Errorf("%w: no %s", ErrNotServed, gvr.Resource)
	}
	return reg.Store(res), nil
}

// loopback returns ctx as the server's own in-process requests carry it:
// kube-apiserver's loopback user, system:apiserver in system:masters, so
// that RBAC's escalation checks let the server write its own policy.
func loopback(ctx context.Context) context.Context {
	return request.WithUser(ctx, &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}})
}
