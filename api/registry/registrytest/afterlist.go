package registrytest

import (
	"context"
	"sync/atomic"

	"github.com/raftapi/raftapi/api/registry"
)

// AfterFirstList wraps a registry.Storage so that fn runs once, after the
// first List of exactly prefix returns its result and before that List
// returns to its caller: the moment between a list and the watch a
// follower of the store opens from the list's revision. Everything else
// passes through.
func AfterFirstList(s registry.Storage, prefix string, fn func()) registry.Storage {
	return &afterFirstList{Storage: s, prefix: prefix, fn: fn}
}

type afterFirstList struct {
	registry.Storage
	prefix string
	fn     func()
	done   atomic.Bool
}

func (s *afterFirstList) List(ctx context.Context, prefix string, opts registry.StoreListOptions) (*registry.ListResult, error) {
	res, err := s.Storage.List(ctx, prefix, opts)
	if prefix == s.prefix && !s.done.Swap(true) {
		s.fn()
	}
	return res, err
}
