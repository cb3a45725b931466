package encryption

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// Storage returns inner with the objects of the resources cfg names
// encrypted at rest: written through the resource's first provider (an
// envelope, see the package documentation) and read through whichever of
// its providers matches. Reads that cannot decrypt a value fail with a
// *TransformError, logged to log (nil: slog.Default()). A nil cfg returns
// inner.
func Storage(inner registry.Storage, cfg *Config, log *slog.Logger) registry.Storage {
	if cfg == nil {
		return inner
	}
	if log == nil {
		log = slog.Default()
	}
	return &storage{inner: inner, cfg: cfg, log: log.With("component", "encryption")}
}

// storage is the decorator Storage returns.
type storage struct {
	inner registry.Storage
	cfg   *Config
	log   *slog.Logger
}

var _ registry.Storage = (*storage)(nil)

// Create implements registry.Storage.
func (s *storage) Create(ctx context.Context, key string, obj []byte) (registry.Object, error) {
	stored, err := s.seal(key, obj)
	if err != nil {
		return registry.Object{}, err
	}
	o, err := s.inner.Create(ctx, key, stored)
	if err != nil {
		return o, err
	}
	return s.written(o, obj)
}

// Update implements registry.Storage.
func (s *storage) Update(ctx context.Context, key string, obj []byte, pre registry.Preconditions) (registry.Object, error) {
	stored, err := s.seal(key, obj)
	if err != nil {
		return registry.Object{}, err
	}
	o, err := s.inner.Update(ctx, key, stored, pre)
	if err != nil {
		return o, err
	}
	return s.written(o, obj)
}

// Delete implements registry.Storage.
func (s *storage) Delete(ctx context.Context, key string, pre registry.Preconditions) (registry.Object, error) {
	o, err := s.inner.Delete(ctx, key, pre)
	if err != nil {
		return o, err
	}
	return s.opened(o)
}

// Get implements registry.Storage.
func (s *storage) Get(ctx context.Context, key string, opts registry.ReadOptions) (registry.Object, error) {
	o, err := s.inner.Get(ctx, key, opts)
	if err != nil {
		return o, err
	}
	return s.opened(o)
}

// List implements registry.Storage. One object that cannot be decrypted
// fails the whole list, as in kube-apiserver.
func (s *storage) List(ctx context.Context, prefix string, opts registry.StoreListOptions) (*registry.ListResult, error) {
	opts.Predicate = s.predicate(prefix, opts.Predicate)
	l, err := s.inner.List(ctx, prefix, opts)
	if err != nil {
		return l, err
	}
	for i, o := range l.Items {
		if l.Items[i], err = s.opened(o); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Watch implements registry.Storage. An event whose object cannot be
// decrypted ends the watch with a WatchError event.
func (s *storage) Watch(ctx context.Context, key string, opts registry.WatchOptions) (registry.Watcher, error) {
	opts.Predicate = s.predicate(key, opts.Predicate)
	w, err := s.inner.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return newWatcher(w, s.openEvent), nil
}

// Revision implements registry.Storage.
func (s *storage) Revision() uint64 { return s.inner.Revision() }

// IsLeader implements registry.Storage.
func (s *storage) IsLeader() bool { return s.inner.IsLeader() }

// seal returns the stored form of obj at key: obj itself unless the
// resource's first provider encrypts.
func (s *storage) seal(key string, obj []byte) ([]byte, error) {
	r := s.cfg.ruleForKey(key)
	if r == nil || !r.encrypts {
		return obj, nil
	}
	encrypted, err := r.providers.write(obj, []byte(key))
	if err != nil {
		return nil, fmt.Errorf("encryption: encrypt %s: %w", key, err)
	}
	return seal(obj, encrypted)
}

// written returns the result of a write of obj: obj as the store stamped
// the stored form, without decrypting what was just encrypted.
func (s *storage) written(o registry.Object, obj []byte) (registry.Object, error) {
	if r := s.cfg.ruleForKey(o.Key); r == nil || !r.encrypts {
		return o, nil
	}
	data, err := raftstore.StampResourceVersion(obj, o.Rev)
	if err != nil {
		return registry.Object{}, fmt.Errorf("encryption: stamp %s: %w", o.Key, err)
	}
	o.Data = data
	return o, nil
}

// opened returns o with its stored form turned back into the object,
// marked Stale when it was not read with the first provider. A failure
// is logged.
func (s *storage) opened(o registry.Object) (registry.Object, error) {
	data, stale, err := s.open(o.Key, o.Data)
	if err != nil {
		s.log.Error("cannot read stored object", "key", o.Key, "rev", o.Rev, "err", err)
		return registry.Object{}, err
	}
	o.Data, o.Stale = data, stale
	return o, nil
}

// open turns the value stored at key back into the object. A resource
// without a rule reads plain objects and refuses envelopes.
func (s *storage) open(key string, stored []byte) ([]byte, bool, error) {
	var env *envelope
	if maybeEnvelope(stored) {
		env = openEnvelope(stored)
	}
	return s.openEnvelope(key, stored, env)
}

// openEnvelope is open for stored whose envelope, if it is one, is env.
func (s *storage) openEnvelope(key string, stored []byte, env *envelope) ([]byte, bool, error) {
	r := s.cfg.ruleForKey(key)
	if r == nil {
		if env != nil {
			return nil, false, &TransformError{Key: key, Err: errEncryptedData}
		}
		return stored, false, nil
	}
	value := stored
	if env != nil {
		value = env.Encrypted
	}
	obj, stale, err := r.providers.read(value, []byte(key))
	if err != nil {
		return nil, false, &TransformError{Key: key, Err: err}
	}
	if env != nil {
		if obj, err = env.stamp(obj); err != nil {
			return nil, false, &TransformError{Key: key, Err: err}
		}
	}
	return obj, stale, nil
}

// openEvent returns ev with its objects decrypted. A failure is logged.
func (s *storage) openEvent(ev registry.WatchEvent) (registry.WatchEvent, error) {
	if ev.Type == registry.Bookmark || ev.Type == registry.WatchError {
		return ev, nil
	}
	for _, data := range []*[]byte{&ev.Object, &ev.Prev} {
		if *data == nil {
			continue
		}
		obj, _, err := s.open(ev.Key, *data)
		if err != nil {
			s.log.Error("cannot read stored object in a watch event", "key", ev.Key, "rev", ev.Rev, "err", err)
			return ev, err
		}
		*data = obj
	}
	return ev, nil
}
