package serviceaccount

import (
	"context"
	"encoding/json"
	"errors"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/registry"
)

// The root CA configmap, as kube's root-ca-cert-publisher writes it.
const (
	// RootCAConfigMap is the configmap's name.
	RootCAConfigMap = "kube-root-ca.crt"
	// RootCAKey is the key of the CA bundle in its data.
	RootCAKey = "ca.crt"
	// DescriptionAnnotation is the annotation that says what it is for.
	DescriptionAnnotation = "kubernetes.io/description"
	// Description is that annotation's value.
	Description = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// sync brings namespace name in order: its default service account and
// its root CA configmap, when it is active.
func (c *Controller) sync(ctx context.Context, name string) error {
	obj, err := c.store.Get(ctx, registry.NamespaceKey(name), registry.ReadOptions{Consistency: registry.Any})
	if registry.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var ns corev1.Namespace
	if err := json.Unmarshal(obj.Data, &ns); err != nil {
		return err
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	return errors.Join(c.ensureServiceAccount(ctx, name), c.ensureRootCA(ctx, name))
}

// ensureServiceAccount creates the default service account of namespace
// ns unless it exists.
func (c *Controller) ensureServiceAccount(ctx context.Context, ns string) error {
	res := c.resource(serviceAccountsGVR)
	_, err := c.store.Get(ctx, res.Key(ns, defaultServiceAccount), registry.ReadOptions{Consistency: registry.Any})
	if !registry.IsNotFound(err) {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: defaultServiceAccount}}
	_, err = c.reg.Store(res).Create(ctx, ns, sa, registry.WriteOptions{Manager: manager})
	return ignorable(err)
}

// ensureRootCA creates the root CA configmap of namespace ns, or puts
// back its data and description, as kube's publisher: other keys of its
// data are dropped, other annotations kept.
func (c *Controller) ensureRootCA(ctx context.Context, ns string) error {
	if len(c.rootCA) == 0 {
		return nil
	}
	res := c.resource(configMapsGVR)
	data := map[string]string{RootCAKey: string(c.rootCA)}
	obj, err := c.store.Get(ctx, res.Key(ns, RootCAConfigMap), registry.ReadOptions{Consistency: registry.Any})
	if registry.IsNotFound(err) {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: RootCAConfigMap, Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data:       data,
		}
		_, err = c.reg.Store(res).Create(ctx, ns, cm, registry.WriteOptions{Manager: manager})
		return ignorable(err)
	}
	if err != nil {
		return err
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal(obj.Data, &cm); err != nil {
		return err
	}
	if maps.Equal(cm.Data, data) && cm.Annotations[DescriptionAnnotation] != "" {
		return nil
	}
	cm.Data = data
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[DescriptionAnnotation] = Description
	_, err = c.reg.Store(res).Update(ctx, ns, RootCAConfigMap, &cm, registry.WriteOptions{Manager: manager})
	return ignorable(err)
}

// ignorable drops the errors of a write that lost a race the controller
// need not win: the object was created meanwhile, or its namespace is
// gone or going.
func ignorable(err error) error {
	if err == nil || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err) ||
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		return nil
	}
	return err
}
