package registry

import (
	"context"
	"fmt"
	"reflect"
	"strconv"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// Update stores obj as the new version of ns/name. With a resourceVersion
// in obj it is a compare-and-swap (409 when stale); without, it is
// unconditional (see updateLoop).
func (s *Store) Update(ctx context.Context, ns, name string, obj runtime.Object, opts WriteOptions) (Result, error) {
	wp := &writeParams{WriteOptions: opts}
	if scale, ok := obj.(*autoscalingv1.Scale); ok && s.isScale() {
		data, err := s.updateScale(ctx, ns, name, scale, wp)
		if err != nil {
			return Result{}, err
		}
		return Result{Data: data, Warnings: wp.warnings}, nil
	}
	data, err := s.replace(ctx, ns, name, obj, wp)
	if err != nil {
		return Result{}, err
	}
	return Result{Data: data, Warnings: wp.warnings}, nil
}

// replace stores obj as the new version of ns/name.
func (s *Store) replace(ctx context.Context, ns, name string, obj runtime.Object, wp *writeParams) ([]byte, error) {
	if err := checkIdentity(s.res, obj, ns, name); err != nil {
		return nil, err
	}
	want, err := parseRV(codec.Accessor(obj).GetResourceVersion())
	if err != nil {
		return nil, err
	}
	return s.updateLoop(ctx, s.res.Key(ns, name), name, want, wp, func(cur Object) ([]byte, error) {
		return s.commitUpdate(ctx, cur, obj.DeepCopyObject(), wp)
	})
}

// updateLoop is the read-modify-write of an update: it reads key, checks
// the resourceVersion the client named (want, 0 for none) and writes what
// write makes of the object read. The first read is this node's own
// state, or with want a state not older than want (a lagging node must
// not answer 409 for a version the client saw elsewhere); the outcome is
// decided again from a Most Recent read by decideAgain's rule. An update
// without a resourceVersion is unconditional: a concurrent change is
// read and the write retried.
func (s *Store) updateLoop(ctx context.Context, key, name string, want uint64, wp *writeParams, write func(cur Object) ([]byte, error)) ([]byte, error) {
	read := freshRead
	if want != 0 {
		read = ReadOptions{Consistency: NotOlderThan, Revision: want}
	}
	for {
		data, err := s.updateAttempt(ctx, key, name, want, read, write)
		if decideAgain(read, err, wp.decided()) {
			read = mostRecent
			continue
		}
		if IsConflict(err) && want == 0 {
			continue
		}
		if err != nil {
			return nil, storeError(err, s.res, name)
		}
		return data, nil
	}
}

// updateAttempt is one attempt of updateLoop.
func (s *Store) updateAttempt(ctx context.Context, key, name string, want uint64, read ReadOptions, write func(cur Object) ([]byte, error)) ([]byte, error) {
	cur, err := s.storage().Get(ctx, key, read)
	if err != nil {
		return nil, err
	}
	if want != 0 && want != cur.Rev {
		return nil, apierrors.NewConflict(s.res.GroupResource(), name, fmt.Errorf("%s", conflictMessage))
	}
	return write(cur)
}

func parseRV(rv string) (uint64, error) {
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, apierrors.NewBadRequest("invalid resourceVersion: " + rv)
	}
	return n, nil
}

// commitUpdate admits obj as the replacement of cur and stores it with cur's
// revision as precondition. It returns the stored form; an update that
// changes nothing is not written and returns cur as it is, unless cur is
// Stale. When the update removes the last finalizer of an object being
// deleted, the object is deleted after the update. A store Conflict is
// returned unwrapped so the caller can retry.
func (s *Store) commitUpdate(ctx context.Context, cur Object, obj runtime.Object, wp *writeParams) ([]byte, error) {
	old, err := codec.DecodeStored(s.res, cur.Data)
	if err != nil {
		return nil, err
	}
	if obj, err = s.trackUpdate(old, obj, wp); err != nil {
		return nil, err
	}
	return s.commitTracked(ctx, cur, old, obj, wp)
}

// commitTracked is commitUpdate for obj whose managedFields are already
// computed (an apply).
func (s *Store) commitTracked(ctx context.Context, cur Object, old, obj runtime.Object, wp *writeParams) ([]byte, error) {
	obj, err := s.resetForSubresource(obj, old)
	if err != nil {
		return nil, err
	}
	if err := s.admitUpdate(obj, old); err != nil {
		return nil, err
	}
	if err := s.admitHook(ctx, obj, old); err != nil {
		return nil, err
	}
	if w, ok := s.strategy().(warner); ok {
		addWarnings(wp, w.WarningsOnUpdate(obj, old))
	}
	canonicalize(s.res, obj)
	data, err := codec.EncodeStored(s.res, obj)
	if err != nil {
		return nil, err
	}
	// An update that changes nothing is found by comparing the stored
	// bytes, as kube-apiserver's etcd3 store does; a stale read (stored
	// under an encryption key that is no longer the first) is written even
	// unchanged, as kube-apiserver does: rewriting every object is how a
	// key rotation completes.
	wp.unchanged = raftstore.EqualButResourceVersion(data, cur.Data) && !cur.Stale
	if wp.unchanged {
		return cur.Data, nil
	}
	if s.res.TracksGeneration && specChanged(data, cur.Data, !s.res.HasSubresource(statusResource)) {
		if data, err = bumpGeneration(s.res, obj); err != nil {
			return nil, err
		}
	}
	if wp.DryRun {
		return data, nil
	}
	key := s.res.Key(codec.Accessor(obj).GetNamespace(), codec.Accessor(obj).GetName())
	stored, err := s.storage().Update(ctx, key, data, Preconditions{ResourceVersion: cur.Rev})
	if err != nil {
		return nil, err
	}
	if Finalized(obj) {
		_, err := s.storage().Delete(ctx, key, Preconditions{ResourceVersion: stored.Rev})
		if err != nil && !IsConflict(err) && !IsNotFound(err) {
			return nil, err
		}
	}
	return stored.Data, nil
}

// Finalized reports whether obj is being deleted and nothing holds it
// any longer: it is to be removed.
func Finalized(obj runtime.Object) bool {
	m := codec.Accessor(obj)
	return m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 && !holdsItself(obj)
}

// checkIdentity checks that obj names the object of the URL: the same
// name and, when it has one, the same namespace.
func checkIdentity(res *resource.Resource, obj runtime.Object, ns, name string) error {
	m := codec.Accessor(obj)
	if m.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name))
	}
	if res.Namespaced && m.GetNamespace() != "" && m.GetNamespace() != ns {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// specChanged reports whether two stored forms of an object differ
// outside metadata and status — status included when statusIsSpec, for a
// resource without a status subresource, as kube's custom resource
// strategy counts it: the change that bumps metadata.generation. Each
// form is decoded once; forms that do not decode count as changed.
func specChanged(a, b []byte, statusIsSpec bool) bool {
	ma, errA := codec.ContentMap(a)
	mb, errB := codec.ContentMap(b)
	if errA != nil || errB != nil {
		return true
	}
	delete(ma, "metadata")
	delete(mb, "metadata")
	if !statusIsSpec {
		delete(ma, "status")
		delete(mb, "status")
	}
	return !reflect.DeepEqual(ma, mb)
}
