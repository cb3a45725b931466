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
func (r *KubeAPI) Watch(ctx context.Context, w int, space string) (figures.Stream, error) {
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
	return objectStream{s}, nil
}

// objectStream is a figures.Stream over a watch of ConfigMaps or custom
// resources.
type objectStream struct{ w *kubeapi.Watch }

func (s objectStream) Next() (string, error) {
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

func (s objectStream) Close() { s.w.Close() }
