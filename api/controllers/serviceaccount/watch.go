package serviceaccount

import (
	"context"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/raftstore"
)

// defaultServiceAccount is the service account every namespace holds.
const defaultServiceAccount = "default"

// watched is one watch of the controller: the resource, and which of its
// events name a namespace to bring in order.
type watched struct {
	gvr      schema.GroupVersionResource
	relevant func(ev registry.WatchEvent, ns, name string) bool
}

// watches: a namespace added or changed; the default service account
// deleted; the root CA configmap changed or deleted.
var watches = []watched{
	{namespacesGVR, func(ev registry.WatchEvent, _, _ string) bool {
		return ev.Type == raftstore.Added || ev.Type == raftstore.Modified
	}},
	{serviceAccountsGVR, func(ev registry.WatchEvent, _, name string) bool {
		return name == defaultServiceAccount && ev.Type == raftstore.Deleted
	}},
	{configMapsGVR, func(ev registry.WatchEvent, _, name string) bool {
		return name == RootCAConfigMap && (ev.Type == raftstore.Modified || ev.Type == raftstore.Deleted)
	}},
}

// watch streams the names of the namespaces the changes after rev call
// for. ended closes when any of the watches ends (an error, cut off for
// falling behind): the caller then starts over. The watches stop when
// ctx ends.
func (c *Controller) watch(ctx context.Context, rev uint64) (events <-chan string, ended <-chan struct{}, err error) {
	out := make(chan string, 64)
	done := make(chan struct{})
	var once sync.Once
	for _, w := range watches {
		prefix := c.resource(w.gvr).Prefix("")
		watcher, err := c.store.Watch(ctx, prefix, registry.WatchOptions{Revision: rev, Recursive: true})
		if err != nil {
			return nil, nil, err
		}
		go func() {
			defer once.Do(func() { close(done) })
			defer watcher.Stop()
			forward(ctx, watcher, prefix, w, out)
		}()
	}
	return out, done, nil
}

// forward sends the namespace of each relevant event of watcher to out,
// until the watch or ctx ends.
func forward(ctx context.Context, watcher registry.Watcher, prefix string, w watched, out chan<- string) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, open := <-watcher.ResultChan():
			if !open || ev.Type == registry.WatchError {
				return
			}
			if ev.Type == registry.Bookmark {
				continue
			}
			ns, name := splitKey(strings.TrimPrefix(ev.Key, prefix))
			if !w.relevant(ev, ns, name) {
				continue
			}
			select {
			case out <- ns:
			case <-ctx.Done():
				return
			}
		}
	}
}

// splitKey splits the rest of a storage key after the resource's prefix:
// "NS/NAME" for a namespaced object, "NAME" for a namespace (which names
// itself).
func splitKey(rest string) (ns, name string) {
	if ns, name, ok := strings.Cut(rest, "/"); ok {
		return ns, name
	}
	return rest, rest
}
