package registrytest

import (
	"bytes"
	"context"
	"strings"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// maxKeyLen is raftstore's longest storage key: bbolt's key size limit (32 KiB)
// less the separator and revision of its key-index entry.
const maxKeyLen = 32768 - 1 - 8

// Create stores obj at key, which must not exist. The returned object
// carries the write's revision in Rev and metadata.resourceVersion.
func (s *Storage) Create(ctx context.Context, key string, obj []byte) (Object, error) {
	if err := s.beginWrite(ctx, key); err != nil {
		return Object{}, err
	}
	defer s.mu.Unlock()
	if _, ok := s.current[key]; ok {
		return Object{}, rejection(raftstore.ErrCodeAlreadyExists, key, 0, "key already exists")
	}
	return s.commitLocked(created, key, obj, Object{})
}

// Update replaces the object at key, which must exist, when pre holds.
func (s *Storage) Update(ctx context.Context, key string, obj []byte, pre registry.Preconditions) (Object, error) {
	prev, err := s.beginChange(ctx, key, pre)
	if err != nil {
		return Object{}, err
	}
	defer s.mu.Unlock()
	return s.commitLocked(updated, key, obj, prev)
}

// Delete removes the object at key, which must exist, when pre holds. It
// returns the deleted object stamped with the deletion's revision.
func (s *Storage) Delete(ctx context.Context, key string, pre registry.Preconditions) (Object, error) {
	prev, err := s.beginChange(ctx, key, pre)
	if err != nil {
		return Object{}, err
	}
	defer s.mu.Unlock()
	return s.commitLocked(deleted, key, prev.Data, prev)
}

// beginWrite is begin for a write: an ended ctx means nothing was applied
// (Unavailable), and the key must be one raftstore accepts. It returns with s.mu
// held when err is nil.
func (s *Storage) beginWrite(ctx context.Context, key string) error {
	if err := s.begin(ctx); err != nil {
		if raftstore.CodeOf(err) == 0 {
			return unavailable(err)
		}
		return err
	}
	if key == "" || len(key) > maxKeyLen || strings.ContainsRune(key, 0) {
		s.mu.Unlock()
		return rejection(raftstore.ErrCodeInvalid, key, 0, "invalid storage key")
	}
	return nil
}

// beginChange is beginWrite for an update or delete: it returns the
// current object once it exists and pre holds, with s.mu held.
func (s *Storage) beginChange(ctx context.Context, key string, pre registry.Preconditions) (Object, error) {
	if err := s.beginWrite(ctx, key); err != nil {
		return Object{}, err
	}
	prev, ok := s.current[key]
	if !ok {
		s.mu.Unlock()
		return Object{}, rejection(raftstore.ErrCodeNotFound, key, 0, "key not found")
	}
	if err := checkPreconditions(pre, prev); err != nil {
		s.mu.Unlock()
		return Object{}, err
	}
	return prev, nil
}

// checkPreconditions mirrors raftstore: resourceVersion first, then UID.
func checkPreconditions(p registry.Preconditions, cur Object) error {
	if p.ResourceVersion != 0 && p.ResourceVersion != cur.Rev {
		return rejection(raftstore.ErrCodeConflict, cur.Key, cur.Rev,
			"resourceVersion precondition %d does not match %d", p.ResourceVersion, cur.Rev)
	}
	if p.UID == "" {
		return nil
	}
	if uid := objectUID(cur.Data); uid != p.UID {
		return rejection(raftstore.ErrCodeConflict, cur.Key, cur.Rev, "uid precondition %s does not match %s", p.UID, uid)
	}
	return nil
}

// commitLocked applies one change at the next revision: obj (for a
// deletion, the last state) is stamped with it, the state, history and
// watchers see it, and waiting readers wake.
func (s *Storage) commitLocked(typ eventKind, key string, obj []byte, prev Object) (Object, error) {
	rev := s.rev + 1
	stamped, err := raftstore.StampResourceVersion(obj, rev)
	if err != nil {
		return Object{}, rejection(raftstore.ErrCodeInvalid, key, 0, "object is not a JSON object: %v", err)
	}
	e := event{Type: typ, Key: key, Rev: rev, Object: stamped, Prev: prev.Data, PrevRev: prev.Rev}
	s.rev = rev
	s.applyLocked(&e)
	close(s.changed)
	s.changed = make(chan struct{})
	if n := s.opts.HistoryMaxRevisions; n > 0 && rev > n {
		s.compactLocked(rev - n)
	}
	return Object{Key: key, Rev: rev, Data: bytes.Clone(stamped)}, nil
}

// applyLocked records e in the current state and the history and offers
// it to the watchers.
func (s *Storage) applyLocked(e *event) {
	if e.Type == deleted {
		delete(s.current, e.Key)
	} else {
		s.current[e.Key] = Object{Key: e.Key, Rev: e.Rev, Data: e.Object}
	}
	s.history = append(s.history, *e)
	s.publishLocked(e)
}
