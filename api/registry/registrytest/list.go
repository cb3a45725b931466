package registrytest

import (
	"context"
	"errors"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// List returns one page of the objects whose keys start with prefix, in
// key order. Every page of one list is served at the first page's
// revision: a continue token decides the revision by itself. A page holds
// up to Limit items that match the predicate; RemainingItemCount is set
// only with a continue token, no predicate and no SkipCount.
func (s *Storage) List(ctx context.Context, prefix string, opts registry.StoreListOptions) (*registry.ListResult, error) {
	after := ""
	if opts.Continue != "" {
		rev, last, err := raftstore.DecodeContinue(opts.Continue, prefix)
		if err != nil {
			return nil, err
		}
		opts.ReadOptions = registry.ReadOptions{Consistency: raftstore.Exact, Revision: rev}
		after = last
	}
	at, err := s.beginRead(ctx, opts.ReadOptions)
	if err != nil {
		return nil, s.expiredList(err, after)
	}
	defer s.mu.Unlock()
	return s.pageLocked(prefix, after, at, opts), nil
}

// expiredList gives a compacted continuation a fresh token that continues
// after the same key at the current revision, as raftstore does.
func (s *Storage) expiredList(err error, after string) error {
	var e *raftstore.Error
	if after != "" && errors.As(err, &e) && e.Code == raftstore.ErrCodeExpired {
		e.Continue = raftstore.EncodeContinue(s.Revision(), after)
	}
	return err
}

// pageLocked is raftstore's listPage over rangeLocked.
func (s *Storage) pageLocked(prefix, after string, at uint64, opts registry.StoreListOptions) *registry.ListResult {
	out := &registry.ListResult{Revision: s.servedLocked(at), Items: []Object{}}
	objs := s.rangeLocked(prefix, after, at)
	visited, last := 0, ""
	for _, o := range objs {
		if opts.Limit > 0 && int64(len(out.Items)) >= opts.Limit {
			break
		}
		visited, last = visited+1, o.Key
		if opts.Predicate == nil || opts.Predicate(o.Data) {
			out.Items = append(out.Items, cloneObject(o))
		}
	}
	if visited == len(objs) {
		return out
	}
	out.Continue = raftstore.EncodeContinue(out.Revision, last)
	if opts.Predicate == nil && !opts.SkipCount {
		remaining := int64(len(objs) - visited)
		out.RemainingItemCount = &remaining
	}
	return out
}
