package registry

import (
	"context"
)

// Get reads ns/name at the consistency its resourceVersion asks for.
func (s *Store) Get(ctx context.Context, ns, name string, opts GetOptions) (Object, error) {
	if s.isScale() {
		return s.getScale(ctx, ns, name, opts)
	}
	obj, err := s.storage().Get(ctx, s.res.Key(ns, name), getReadOptions(opts.ResourceVersion))
	if err != nil {
		return Object{}, storeError(err, s.res, name)
	}
	return obj, nil
}

// List reads the objects of namespace ns ("" for all) that match the
// selectors, at the state the resourceVersion semantics select, one page
// at a time with Limit and Continue.
func (s *Store) List(ctx context.Context, ns string, opts ListOptions) (*ListResult, error) {
	ro, err := opts.listReadOptions()
	if err != nil {
		return nil, err
	}
	res, err := s.storage().List(ctx, s.res.Prefix(ns), StoreListOptions{
		ReadOptions: ro, Limit: opts.Limit, Continue: opts.Continue, Predicate: predicate(s.res, opts),
	})
	if err != nil {
		return nil, storeError(err, s.res, "")
	}
	return res, nil
}

// WatchResult is an open watch: the initial state to send first, as
// ADDED events, and the changes after it.
type WatchResult struct {
	// Initial holds the objects of the initial state, if the semantics
	// ask for one.
	Initial []Object
	// From is the revision the initial state was read at (or the watch's
	// resourceVersion).
	From uint64
	// InitialEventsEnd is set when the initial state must end with a
	// bookmark annotated k8s.io/initial-events-end (sendInitialEvents).
	InitialEventsEnd bool
	// Watcher streams the changes after From; the caller stops it.
	Watcher Watcher
}

// Watch opens a watch of namespace ns ("" for all) for the objects that
// match the selectors: with the current state first when the
// resourceVersion semantics ask for it, then the changes. ctx bounds the
// watch's life.
func (s *Store) Watch(ctx context.Context, ns string, opts ListOptions) (*WatchResult, error) {
	initial, ro, err := opts.watchStart()
	if err != nil {
		return nil, err
	}
	pred := predicate(s.res, opts)
	wr := &WatchResult{From: revision(opts.ResourceVersion), InitialEventsEnd: opts.SendInitialEvents != nil && *opts.SendInitialEvents}
	if initial {
		l, err := s.storage().List(ctx, s.res.Prefix(ns), StoreListOptions{ReadOptions: ro, Predicate: pred})
		if err != nil {
			return nil, storeError(err, s.res, "")
		}
		wr.Initial, wr.From = l.Items, l.Revision
	}
	wr.Watcher, err = s.storage().Watch(ctx, s.res.Prefix(ns), WatchOptions{Revision: wr.From, Predicate: pred, Recursive: true})
	if err != nil {
		return nil, storeError(err, s.res, "")
	}
	return wr, nil
}
