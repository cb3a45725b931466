package registry

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// Delete deletes ns/name after checking the options' preconditions.
// The propagation policy decides the garbage-collection finalizers first
// (deletionFinalizers); an object left with finalizers is marked with a
// deletionTimestamp instead of removed, and goes when its last finalizer
// does. A namespace is marked Terminating and removed by the namespace
// lifecycle once it is empty.
func (s *Store) Delete(ctx context.Context, ns, name string, opts *metav1.DeleteOptions) (DeleteResult, error) {
	if err := validateDeleteOptions(opts); err != nil {
		return DeleteResult{}, err
	}
	if isNamespaceResource(s.res) && builtin.IsImmortalNamespace(name) {
		return DeleteResult{}, builtin.ImmortalNamespaceError(name)
	}
	key := s.res.Key(ns, name)
	read := freshRead
	for {
		d, err := s.deleteAttempt(ctx, key, name, read, opts)
		if decideAgain(read, err, d.decided) {
			read = mostRecent
			continue
		}
		if IsConflict(err) {
			continue
		}
		if err != nil {
			return DeleteResult{}, storeError(err, s.res, name)
		}
		return d, nil
	}
}

// deleteAttempt reads key as read says and deletes or marks what it read.
func (s *Store) deleteAttempt(ctx context.Context, key, name string, read ReadOptions, opts *metav1.DeleteOptions) (DeleteResult, error) {
	cur, err := s.storage().Get(ctx, key, read)
	if err != nil {
		return DeleteResult{}, err
	}
	obj, err := codec.DecodeStored(s.res, cur.Data)
	if err != nil {
		return DeleteResult{}, err
	}
	if err := checkPreconditions(s.res, obj, cur.Rev, opts.Preconditions, name); err != nil {
		return DeleteResult{}, err
	}
	return s.deleteCurrent(ctx, key, cur, obj, opts)
}

// deleteCurrent deletes or marks obj, the object stored as cur, as
// kube-apiserver's store does: the propagation finalizers are updated even
// on an object already being deleted, whose deletionTimestamp stays; an
// object left without finalizers is removed.
func (s *Store) deleteCurrent(ctx context.Context, key string, cur Object, obj runtime.Object, opts *metav1.DeleteOptions) (DeleteResult, error) {
	dryRun := len(opts.DryRun) > 0
	if isNamespace(obj) {
		return s.markDeleting(ctx, key, cur, obj, dryRun)
	}
	m := codec.Accessor(obj)
	if p, ok := s.res.GetStrategy().(deletePreparer); ok && m.GetDeletionTimestamp() == nil {
		p.PrepareForDelete(obj)
	}
	finalizers, changed := deletionFinalizers(m, opts)
	m.SetFinalizers(finalizers)
	switch {
	case len(finalizers) == 0:
		return s.remove(ctx, key, cur, obj, dryRun)
	case m.GetDeletionTimestamp() != nil && !changed:
		return DeleteResult{Data: cur.Data}, nil
	}
	return s.markDeleting(ctx, key, cur, obj, dryRun)
}

func checkPreconditions(res *resource.Resource, obj runtime.Object, rev uint64, p *metav1.Preconditions, name string) error {
	if p == nil {
		return nil
	}
	m := codec.Accessor(obj)
	if p.UID != nil && *p.UID != m.GetUID() {
		return conflictf(res, name, "Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID())
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != fmt.Sprint(rev) {
		return conflictf(res, name, "Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, rev)
	}
	return nil
}

// storedPreconditions pin a write to the object as read: its revision and
// its uid.
func storedPreconditions(cur Object, obj runtime.Object) Preconditions {
	return Preconditions{ResourceVersion: cur.Rev, UID: string(codec.Accessor(obj).GetUID())}
}

// remove deletes the object at its current revision.
func (s *Store) remove(ctx context.Context, key string, cur Object, obj runtime.Object, dryRun bool) (DeleteResult, error) {
	if dryRun {
		return DeleteResult{Data: cur.Data, Gone: true, decided: true}, nil
	}
	_, err := s.storage().Delete(ctx, key, storedPreconditions(cur, obj))
	if err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{Data: cur.Data, Gone: true, decided: true}, nil
}

// markDeleting stores obj, the object read as cur with its finalizers
// already decided, as being deleted: kube-apiserver's markAsDeleting sets
// deletionTimestamp to now unless an earlier one is set, and
// deletionGracePeriodSeconds to 0 (no resource here deletes gracefully);
// the first mark bumps a set generation. A namespace also enters its
// Terminating phase.
func (s *Store) markDeleting(ctx context.Context, key string, cur Object, obj runtime.Object, dryRun bool) (DeleteResult, error) {
	m := codec.Accessor(obj)
	if isNamespace(obj) && m.GetDeletionTimestamp() != nil {
		return DeleteResult{Data: cur.Data}, nil
	}
	now := metav1.NewTime(s.reg.opts.Now())
	if ts := m.GetDeletionTimestamp(); ts == nil || ts.After(now.Time) {
		if ts == nil && m.GetGeneration() > 0 {
			m.SetGeneration(m.GetGeneration() + 1)
		}
		m.SetDeletionTimestamp(&now)
	}
	zero := int64(0)
	m.SetDeletionGracePeriodSeconds(&zero)
	setTerminating(obj)
	data, err := codec.EncodeStored(s.res, obj)
	if err != nil || dryRun {
		return DeleteResult{Data: data, decided: true}, err
	}
	stored, err := s.storage().Update(ctx, key, data, storedPreconditions(cur, obj))
	if err != nil {
		return DeleteResult{}, err
	}
	if isNamespace(obj) {
		s.reg.opts.NamespaceDeleting()
	}
	return DeleteResult{Data: stored.Data, decided: true}, nil
}
