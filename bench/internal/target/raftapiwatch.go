package target

import (
	"context"
	"fmt"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// Watch opens a watch of the namespace's ConfigMaps on node w mod 3 from
// its current resourceVersion (a Most Recent list of one item), on the
// connections of w's group of watchers.
func (r *Raftapi) Watch(ctx context.Context, w int, space string) (figures.Stream, error) {
	cl := r.watches.client(w)
	ns := Namespace(space)
	p, err := cl.ListConfigMaps(ctx, ns, kubeapi.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("target: watch %s: %w", ns, err)
	}
	s, err := cl.WatchConfigMaps(ctx, ns, p.ResourceVersion)
	if err != nil {
		return nil, err
	}
	return raftapiStream{s}, nil
}

// raftapiStream is a figures.Stream over a ConfigMap watch.
type raftapiStream struct{ w *kubeapi.Watch }

func (s raftapiStream) Next() (string, error) {
	for {
		ev, err := s.w.Next()
		if err != nil {
			return "", err
		}
		if ev.Type != "BOOKMARK" {
			return ev.Name, nil
		}
	}
}

func (s raftapiStream) Close() { s.w.Close() }
