package api

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/raftstore"
)

// reconcileInterval is how often the leader looks at the namespaces.
const reconcileInterval = time.Second

// namespaceLifecycle creates the system namespaces and empties and
// removes namespaces being deleted. Every node runs it; only the leader
// acts, so the work moves with leadership. Its writes carry revision
// preconditions, so an old leader's late write fails instead of undoing
// a newer one.
type namespaceLifecycle struct {
	server *Server
	store  Storage
	kickc  chan struct{}
}

func newNamespaceLifecycle(s *Server) *namespaceLifecycle {
	return &namespaceLifecycle{server: s, store: s.store, kickc: make(chan struct{}, 1)}
}

// kick asks for a reconcile soon.
func (l *namespaceLifecycle) kick() {
	select {
	case l.kickc <- struct{}{}:
	default:
	}
}

// run reconciles until ctx ends.
func (l *namespaceLifecycle) run(ctx context.Context) {
	t := time.NewTicker(reconcileInterval)
	defer t.Stop()
	for {
		if l.store.IsLeader() {
			l.reconcile(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-l.kickc:
		}
	}
}

func (l *namespaceLifecycle) reconcile(ctx context.Context) {
	for _, ns := range systemNamespaces {
		if _, err := l.store.Get(ctx, namespaceKey(ns), raftstore.ReadOptions{Consistency: raftstore.Any}); raftstore.IsNotFound(err) {
			_ = l.ensure(ctx, ns)
		}
	}
	res, err := l.store.List(ctx, "/registry/core/namespaces/", raftstore.ListOptions{ReadOptions: raftstore.ReadOptions{Consistency: raftstore.Any}})
	if err != nil {
		return
	}
	for _, o := range res.Items {
		var n corev1.Namespace
		if json.Unmarshal(o.Data, &n) == nil && n.DeletionTimestamp != nil {
			l.finalize(ctx, o, &n)
		}
	}
}

// ensure creates namespace ns if it does not exist.
func (l *namespaceLifecycle) ensure(ctx context.Context, ns string) error {
	n := &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: ns, UID: typesUID(l.server.opts.NewUID()),
			CreationTimestamp: metav1.NewTime(l.server.opts.Now()),
			Labels:            map[string]string{corev1.LabelMetadataName: ns},
		},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	_, err = l.store.Create(ctx, namespaceKey(ns), data)
	if raftstore.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// finalize deletes the content of a terminating namespace and, once none
// is left, the namespace itself.
func (l *namespaceLifecycle) finalize(ctx context.Context, cur raftstore.Object, n *corev1.Namespace) {
	if l.deleteContent(ctx, n.Name) > 0 {
		return
	}
	key := namespaceKey(n.Name)
	if len(n.Finalizers) == 0 {
		_, _ = l.store.Delete(ctx, key, raftstore.Preconditions{ResourceVersion: cur.Rev})
		return
	}
	if len(n.Spec.Finalizers) > 0 {
		n.Spec.Finalizers = nil
		if data, err := json.Marshal(n); err == nil {
			_, _ = l.store.Update(ctx, key, data, raftstore.Preconditions{ResourceVersion: cur.Rev})
		}
	}
}

// deleteContent deletes every object in namespace ns and returns how many
// remain (held by finalizers, or failed).
func (l *namespaceLifecycle) deleteContent(ctx context.Context, ns string) int {
	remaining := 0
	for _, res := range l.server.registry.All() {
		if !res.Namespaced {
			continue
		}
		h := &handler{server: l.server, res: res}
		list, err := l.store.List(ctx, res.Prefix(ns), raftstore.ListOptions{ReadOptions: raftstore.ReadOptions{Consistency: raftstore.Any}})
		if err != nil {
			remaining++
			continue
		}
		for _, o := range list.Items {
			m, err := decodeStored(res, o.Data)
			if err != nil {
				remaining++
				continue
			}
			d, err := h.deleteObject(ctx, ns, accessor(m).GetName(), &metav1.DeleteOptions{})
			if err != nil || !d.gone {
				remaining++
			}
		}
	}
	return remaining
}

// SystemNamespacesReady returns nil once this node has every system
// namespace, an error naming the first missing one otherwise.
func (s *Server) SystemNamespacesReady() error {
	for _, ns := range systemNamespaces {
		_, err := s.store.Get(context.Background(), namespaceKey(ns), raftstore.ReadOptions{Consistency: raftstore.Any})
		if err != nil {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	return nil
}
