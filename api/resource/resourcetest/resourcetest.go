// Package resourcetest holds resource descriptions for tests of the
// packages that are driven by a resource.Registry.
package resourcetest

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/resource"
)

// Typed returns configmaps, secrets and namespaces (with every verb but
// deletecollection) in the core group and leases (category "all") in
// coordination.k8s.io, all with their Go types and no strategy.
func Typed() []*resource.Resource {
	return []*resource.Resource{
		{
			Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
			Plural: "configmaps", Singular: "configmap", Namespaced: true, ShortNames: []string{"cm"},
			New:     func() runtime.Object { return &corev1.ConfigMap{} },
			NewList: func() runtime.Object { return &corev1.ConfigMapList{} },
		},
		{
			Version: "v1", Kind: "Secret", ListKind: "SecretList",
			Plural: "secrets", Singular: "secret", Namespaced: true,
			New:     func() runtime.Object { return &corev1.Secret{} },
			NewList: func() runtime.Object { return &corev1.SecretList{} },
		},
		{
			Version: "v1", Kind: "Namespace", ListKind: "NamespaceList",
			Plural: "namespaces", Singular: "namespace", ShortNames: []string{"ns"},
			Verbs:   []string{"create", "delete", "get", "list", "patch", "update", "watch"},
			New:     func() runtime.Object { return &corev1.Namespace{} },
			NewList: func() runtime.Object { return &corev1.NamespaceList{} },
		},
		{
			Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", ListKind: "LeaseList",
			Plural: "leases", Singular: "lease", Namespaced: true, Categories: []string{"all"},
			New:     func() runtime.Object { return &coordinationv1.Lease{} },
			NewList: func() runtime.Object { return &coordinationv1.LeaseList{} },
		},
	}
}

// CronTab returns stable.example.com/v1 crontabs, a namespaced resource
// without a Go type.
func CronTab() *resource.Resource {
	return &resource.Resource{
		Group: "stable.example.com", Version: "v1", Kind: "CronTab", ListKind: "CronTabList",
		Plural: "crontabs", Singular: "crontab", Namespaced: true, ShortNames: []string{"ct"},
	}
}
