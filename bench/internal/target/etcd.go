package target

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/raftapi/raftapi/bench/internal/figures"
)

// Etcd drives an etcd cluster with raw key-value requests: puts of the
// value, linearizable or serializable gets, prefix ranges and watches.
type Etcd struct {
	clients []*clientv3.Client // one per member
}

var _ figures.Target = (*Etcd)(nil)

// NewEtcd returns the target of the members' clients, one per member.
func NewEtcd(clients []*clientv3.Client) *Etcd { return &Etcd{clients: clients} }

// Name implements figures.Target.
func (e *Etcd) Name() string { return "etcd" }

func (e *Etcd) client(c int) *clientv3.Client { return e.clients[c%len(e.clients)] }

func prefix(space string) string { return "/bench/" + space + "/" }

// Prepare does nothing: keys need no container.
func (e *Etcd) Prepare(context.Context, string) error { return nil }

// Create puts the key.
func (e *Etcd) Create(ctx context.Context, c int, space, name, value string) error {
	_, err := e.client(c).Put(ctx, prefix(space)+name, value)
	return err
}

// Update puts the key again.
func (e *Etcd) Update(ctx context.Context, c int, space, name, value string) error {
	_, err := e.client(c).Put(ctx, prefix(space)+name, value)
	return err
}

// Delete deletes the key; a key that is not there is an error.
func (e *Etcd) Delete(ctx context.Context, c int, space, name string) error {
	resp, err := e.client(c).Delete(ctx, prefix(space)+name)
	if err != nil {
		return err
	}
	if resp.Deleted != 1 {
		return fmt.Errorf("target: delete %s%s: not found", prefix(space), name)
	}
	return nil
}

// Get reads the key, linearizable or, with stale, serializable.
func (e *Etcd) Get(ctx context.Context, c int, space, name string, stale bool) error {
	var opts []clientv3.OpOption
	if stale {
		opts = append(opts, clientv3.WithSerializable())
	}
	resp, err := e.client(c).Get(ctx, prefix(space)+name, opts...)
	if err != nil {
		return err
	}
	if len(resp.Kvs) != 1 {
		return fmt.Errorf("target: get %s%s: not found", prefix(space), name)
	}
	return nil
}

// List ranges over the space's prefix, linearizably.
func (e *Etcd) List(ctx context.Context, c int, space string) (int, error) {
	resp, err := e.client(c).Get(ctx, prefix(space), clientv3.WithPrefix())
	if err != nil {
		return 0, err
	}
	return len(resp.Kvs), nil
}
