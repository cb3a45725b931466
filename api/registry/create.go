package registry

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/raftapi/raftapi/api/codec"
)

// maxGenerateNameAttempts bounds retries when a generated name collides.
const maxGenerateNameAttempts = 8

// Create admits obj as a new object of namespace ns and stores it. An
// object with generateName and no name gets a generated name, drawn again
// when it collides.
func (s *Store) Create(ctx context.Context, ns string, obj runtime.Object, opts WriteOptions) (Result, error) {
	wp := &writeParams{WriteOptions: opts}
	data, err := s.create(ctx, obj, ns, wp)
	if err != nil {
		return Result{}, err
	}
	return Result{Data: data, Warnings: wp.warnings}, nil
}

func (s *Store) create(ctx context.Context, obj runtime.Object, ns string, wp *writeParams) ([]byte, error) {
	m := codec.Accessor(obj)
	generate := m.GetName() == "" && m.GetGenerateName() != ""
	if generate {
		m.SetName(m.GetGenerateName() + utilrand.String(5))
	}
	obj, err := s.trackCreate(obj, wp)
	if err != nil {
		return nil, err
	}
	return s.storeNew(ctx, obj, ns, generate, wp)
}

// storeNew admits obj, whose managedFields are set, and stores it.
func (s *Store) storeNew(ctx context.Context, obj runtime.Object, ns string, generate bool, wp *writeParams) ([]byte, error) {
	m := codec.Accessor(obj)
	if err := s.admitCreate(ctx, obj, ns); err != nil {
		return nil, err
	}
	if w, ok := s.res.GetStrategy().(warner); ok {
		addWarnings(wp, w.WarningsOnCreate(obj))
	}
	if s.res.Namespaced {
		if err := s.reg.admitNamespace(ctx, s.res, ns, m.GetName(), wp.DryRun); err != nil {
			return nil, err
		}
	}
	if err := s.admitHook(ctx, obj, nil); err != nil {
		return nil, err
	}
	if wp.DryRun {
		return s.dryRunCreate(ctx, obj)
	}
	stored, err := s.createWithName(ctx, obj, generate)
	if err != nil {
		return nil, err
	}
	return stored.Data, nil
}

// createWithName stores obj; when its name was generated from
// generateName, a collision draws a new name and retries.
func (s *Store) createWithName(ctx context.Context, obj runtime.Object, generate bool) (Object, error) {
	m := codec.Accessor(obj)
	for attempt := 0; ; attempt++ {
		if generate && attempt > 0 {
			m.SetName(m.GetGenerateName() + utilrand.String(5))
		}
		canonicalize(s.res, obj)
		data, err := codec.EncodeStored(s.res, obj)
		if err != nil {
			return Object{}, err
		}
		stored, err := s.storage().Create(ctx, s.res.Key(m.GetNamespace(), m.GetName()), data)
		if generate && IsAlreadyExists(err) && attempt < maxGenerateNameAttempts {
			continue
		}
		if generate && IsAlreadyExists(err) {
			return stored, apierrors.NewGenerateNameConflict(s.res.GroupResource(), m.GetName(), 1)
		}
		if err != nil {
			return stored, storeError(err, s.res, m.GetName())
		}
		return stored, nil
	}
}

// dryRunCreate answers a dry-run create: what would be stored, or
// AlreadyExists when the name is taken, as a real create would.
func (s *Store) dryRunCreate(ctx context.Context, obj runtime.Object) ([]byte, error) {
	canonicalize(s.res, obj)
	m := codec.Accessor(obj)
	_, err := s.storage().Get(ctx, s.res.Key(m.GetNamespace(), m.GetName()), ReadOptions{Consistency: MostRecent})
	switch {
	case err == nil:
		return nil, apierrors.NewAlreadyExists(s.res.GroupResource(), m.GetName())
	case !IsNotFound(err):
		return nil, storeError(err, s.res, m.GetName())
	}
	return codec.EncodeStored(s.res, obj)
}
