package api

import (
	"context"

	"github.com/raftapi/raftapi/raftstore"
)

// Storage is the slice of the replicated store the API needs.
// raftstore.Store implements it; all methods are safe for concurrent use.
//
// Writes return typed *raftstore.Error values (NotFound, AlreadyExists,
// Conflict, Invalid, Unavailable, UnknownOutcome); reads add Expired,
// TooLargeResourceVersion and BadRequest. The API maps each to a Status.
type Storage interface {
	Create(ctx context.Context, key string, obj []byte) (raftstore.Object, error)
	Update(ctx context.Context, key string, obj []byte, pre raftstore.Preconditions) (raftstore.Object, error)
	Delete(ctx context.Context, key string, pre raftstore.Preconditions) (raftstore.Object, error)
	Get(ctx context.Context, key string, opts raftstore.ReadOptions) (raftstore.Object, error)
	List(ctx context.Context, prefix string, opts raftstore.ListOptions) (*raftstore.ListResult, error)
	Watch(ctx context.Context, key string, opts raftstore.WatchOptions) (*raftstore.Watch, error)
	Revision() uint64
	// IsLeader reports whether this node currently leads; controllers
	// act only on the leader.
	IsLeader() bool
}

var _ Storage = (*raftstore.Store)(nil)
