package crd

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// maxRewriteAttempts bounds the rewrites of one object that clients keep
// overtaking with writes in an old version (a server that has not applied
// the new storage version yet); the pass then fails and is retried.
const maxRewriteAttempts = 5

// rewrite stores o converted to the storage version, with o's revision as
// the precondition: one log entry, a MODIFIED event for watchers, the
// object's content unchanged but for its version. A Conflict means a
// client wrote it meanwhile: it is read again and rewritten only if still
// in another version, so no client write is ever overwritten. An object
// deleted meanwhile is skipped.
func (p *pass) rewrite(ctx context.Context, o registry.Object) error {
	storage := p.c.reg.Storage()
	key := o.Key
	for attempt := 1; ; attempt++ {
		data, err := p.convert(o)
		if err != nil {
			return err
		}
		_, err = storage.Update(ctx, o.Key, data, registry.Preconditions{ResourceVersion: o.Rev})
		switch {
		case err == nil:
			p.rewritten++
			return nil
		case registry.IsNotFound(err):
			return nil
		case !registry.IsConflict(err):
			return fmt.Errorf("rewriting %s: %w", key, err)
		case attempt == maxRewriteAttempts:
			return fmt.Errorf("rewriting %s: still written in another version after %d attempts: %w", key, attempt, err)
		}
		o, err = storage.Get(ctx, key, registry.ReadOptions{Consistency: registry.MostRecent})
		if registry.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s again: %w", key, err)
		}
		if p.inStorageVersion(o.Data) {
			return nil
		}
	}
}

// convert returns o in the storage version: decoded through a served
// version's resource (the storage version's when served, which converts
// to it; another's otherwise, whose encoding converts to storage), then
// encoded as stored.
func (p *pass) convert(o registry.Object) ([]byte, error) {
	res := p.resource()
	if res == nil {
		return nil, errNotServed
	}
	obj, err := codec.DecodeStored(res, o.Data)
	if err != nil {
		return nil, &conversionError{key: p.objectName(o.Key), err: err}
	}
	data, err := codec.EncodeStored(res, obj)
	if err != nil {
		return nil, &conversionError{key: p.objectName(o.Key), err: err}
	}
	if apiVersion(data) != p.want {
		return nil, errNotServed
	}
	return data, nil
}

// resource returns a resource served on this node that writes the
// storage version, the storage version's own first; nil while this node
// serves none (it has not applied the CRD's change yet). It is looked up
// anew for every object: the served resources are rebuilt when the CRD
// or its conversion changes.
func (p *pass) resource() *resource.Resource {
	for _, v := range append([]string{p.to}, p.served...) {
		r := p.c.reg.Resources().Get(schema.GroupVersionResource{Group: p.group, Version: v, Resource: p.plural})
		if r != nil && r.Schema != nil && r.Schema.StorageVersion() == p.to {
			return r
		}
	}
	return nil
}

// objectName is the namespace/name (or name) of the object at key.
func (p *pass) objectName(key string) string {
	return strings.TrimPrefix(key, p.prefix)
}
