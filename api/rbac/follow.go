package rbac

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// retryDelay is the pause after a failed list or watch before the next
// attempt.
const retryDelay = time.Second

// emptyPoll is the pause before listing again a store nothing was ever
// written to (revision 0).
const emptyPoll = 100 * time.Millisecond

// collection is the objects of one RBAC kind in the node's state, by
// storage key, as its list and watch have seen them. Authorizer.mu
// guards items and listed.
type collection[T any] struct {
	res    *resource.Resource
	items  map[string]*T
	listed bool
}

// Run follows the RBAC objects of the store until ctx ends (see the
// package comment). Call it once.
func (a *Authorizer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, run := range []func(context.Context){
		func(ctx context.Context) { follow(ctx, a, &a.roles) },
		func(ctx context.Context) { follow(ctx, a, &a.clusterRoles) },
		func(ctx context.Context) { follow(ctx, a, &a.roleBindings) },
		func(ctx context.Context) { follow(ctx, a, &a.clusterRoleBindings) },
		a.reindex,
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(ctx)
		}()
	}
	wg.Wait()
}

// follow keeps c in step with the store: a list, then a watch from the
// list's revision, again after every watch that ends. Every list reads
// this node's own applied state (Any): a node that cannot reach a leader
// still enforces the roles it has, and the watch brings it up to date as
// it applies the log.
func follow[T any](ctx context.Context, a *Authorizer, c *collection[T]) {
	for ctx.Err() == nil {
		rev, err := list(ctx, a, c, registry.Any)
		if err != nil {
			if ctx.Err() == nil {
				a.log.Warn("rbac: listing", "resource", c.res.Plural, "err", err)
			}
			sleep(ctx, retryDelay)
			continue
		}
		if rev == 0 {
			// A watch from 0 starts at the current revision: an object
			// written between this list and the watch would go unseen.
			sleep(ctx, emptyPoll)
			continue
		}
		if err := watch(ctx, a, c, rev); err != nil && ctx.Err() == nil {
			a.log.Info("rbac: watch ended", "resource", c.res.Plural, "err", err)
			sleep(ctx, retryDelay)
		}
	}
}

// list replaces c's objects with those stored now and returns the
// revision of the list.
func list[T any](ctx context.Context, a *Authorizer, c *collection[T], consistency registry.Consistency) (uint64, error) {
	res, err := a.store.List(ctx, c.res.Prefix(""), registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: consistency}})
	if err != nil {
		return 0, err
	}
	items := make(map[string]*T, len(res.Items))
	for _, o := range res.Items {
		if obj := decode[T](a, o.Key, o.Data); obj != nil {
			items[o.Key] = obj
		}
	}
	a.mu.Lock()
	c.items, c.listed = items, true
	a.mu.Unlock()
	a.touch()
	return res.Revision, nil
}

// watch applies the changes after rev to c until the watch ends; the
// error says why it ended (nil when the channel just closed).
func watch[T any](ctx context.Context, a *Authorizer, c *collection[T], rev uint64) error {
	w, err := a.store.Watch(ctx, c.res.Prefix(""), registry.WatchOptions{Revision: rev, Recursive: true})
	if err != nil {
		return err
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case registry.Bookmark:
			continue
		case registry.WatchError:
			return ev.Err
		case registry.Deleted:
			a.mu.Lock()
			delete(c.items, ev.Key)
			a.mu.Unlock()
		default:
			obj := decode[T](a, ev.Key, ev.Object)
			a.mu.Lock()
			if obj != nil {
				c.items[ev.Key] = obj
			} else {
				delete(c.items, ev.Key)
			}
			a.mu.Unlock()
		}
		a.touch()
	}
	return nil
}

// decode reads a stored object; nil (logged) when it cannot.
func decode[T any](a *Authorizer, key string, data []byte) *T {
	obj := new(T)
	if err := json.Unmarshal(data, obj); err != nil {
		a.log.Error("rbac: undecodable object", "key", key, "err", err)
		return nil
	}
	return obj
}

// touch asks reindex for a new index.
func (a *Authorizer) touch() {
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// reindex builds a new index after every change of the collections,
// until ctx ends; once all four kinds have been listed, the authorizer
// has synced.
func (a *Authorizer) reindex(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.changed:
		}
		a.mu.Lock()
		x := buildIndex(objects{
			roles: a.roles.items, clusterRoles: a.clusterRoles.items,
			roleBindings: a.roleBindings.items, clusterRoleBindings: a.clusterRoleBindings.items,
		})
		listed := a.roles.listed && a.clusterRoles.listed && a.roleBindings.listed && a.clusterRoleBindings.listed
		a.mu.Unlock()
		a.current.Store(x)
		if listed {
			a.once.Do(func() { close(a.synced) })
		}
	}
}

// sleep waits for d or the end of ctx.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
