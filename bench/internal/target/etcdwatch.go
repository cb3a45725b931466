package target

import (
	"context"
	"errors"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/raftapi/raftapi/bench/internal/figures"
)

// errEtcdWatchEnded is Next's error when the watch channel closed.
var errEtcdWatchEnded = errors.New("target: the etcd watch ended")

// Watch watches the space's prefix on member w mod 3 and returns once
// the member has confirmed the watch.
func (e *Etcd) Watch(ctx context.Context, w int, space string) (figures.Stream, error) {
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	ch := e.client(w).Watch(ctx, prefix(space), clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	resp, ok := <-ch
	if !ok || resp.Err() != nil || !resp.Created {
		cancel()
		return nil, fmt.Errorf("target: etcd watch %s: not created: %v", prefix(space), resp.Err())
	}
	return &etcdStream{ch: ch, cancel: cancel, prefix: prefix(space)}, nil
}

// etcdStream is a figures.Stream over an etcd watch channel.
type etcdStream struct {
	ch      clientv3.WatchChan
	cancel  context.CancelFunc
	prefix  string
	pending []string
}

func (s *etcdStream) Next() (string, error) {
	for len(s.pending) == 0 {
		resp, ok := <-s.ch
		if !ok {
			return "", errEtcdWatchEnded
		}
		if err := resp.Err(); err != nil {
			return "", err
		}
		for _, ev := range resp.Events {
			s.pending = append(s.pending, strings.TrimPrefix(string(ev.Kv.Key), s.prefix))
		}
	}
	name := s.pending[0]
	s.pending = s.pending[1:]
	return name, nil
}

func (s *etcdStream) Close() { s.cancel() }
