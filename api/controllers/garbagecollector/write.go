package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// readNode reads the object of res at key with a Most Recent read; nil
// when there is none.
func (gc *Collector) readNode(ctx context.Context, res *resource.Resource, key string) (*gcNode, error) {
	return gc.readNodeAt(ctx, res, key, registry.MostRecent)
}

// readNodeAt reads the object of res at key with consistency c; nil when
// there is none.
func (gc *Collector) readNodeAt(ctx context.Context, res *resource.Resource, key string, c registry.Consistency) (*gcNode, error) {
	o, err := gc.store.Get(ctx, key, registry.ReadOptions{Consistency: c})
	if registry.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return newGCNode(res, o)
}

// latest reads n again; nil when it is gone (or replaced by an object
// with another uid).
func (gc *Collector) latest(ctx context.Context, n *gcNode) (*gcNode, error) {
	cur, err := gc.readNode(ctx, n.res, n.key)
	if err != nil || cur == nil || cur.uid() != n.uid() {
		return nil, err
	}
	return cur, nil
}

// deleteNode deletes n as a client would, with policy, preconditioned on
// n's uid and revision: the finalizers the policy calls for are set by the
// same code that serves DELETE. An object already gone is not an error.
func (gc *Collector) deleteNode(ctx context.Context, n *gcNode, policy metav1.DeletionPropagation) error {
	gc.log.Info("deleting object", "object", n.String(), "propagationPolicy", policy)
	uid, rv := n.uid(), strconv.FormatUint(n.rev, 10)
	_, err := gc.reg.Store(n.res).Delete(ctx, n.meta.Namespace, n.meta.Name, &metav1.DeleteOptions{
		Preconditions:     &metav1.Preconditions{UID: &uid, ResourceVersion: &rv},
		PropagationPolicy: &policy,
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// metaEdit changes the metadata of an object's JSON content in place and
// reports whether it changed anything.
type metaEdit func(md map[string]any) bool

// editMeta applies edit to the latest state of n and stores it with
// revision and uid preconditions, reading again and retrying on a
// conflict. An object that is gone, or is another object by now, is left
// alone. An object being deleted that the edit leaves without finalizers
// is removed, as when a client removes the last finalizer.
func (gc *Collector) editMeta(ctx context.Context, n *gcNode, edit metaEdit) error {
	for range gcRetries {
		cur, err := gc.store.Get(ctx, n.key, registry.ReadOptions{Consistency: registry.MostRecent})
		if registry.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", n.key, err)
		}
		content, err := codec.ContentMap(cur.Data)
		if err != nil {
			return fmt.Errorf("decode %s: %w", n.key, err)
		}
		md, _ := content["metadata"].(map[string]any)
		if md == nil || md["uid"] != string(n.uid()) || !edit(md) {
			return nil
		}
		data, err := json.Marshal(content)
		if err != nil {
			return fmt.Errorf("encode %s: %w", n.key, err)
		}
		stored, err := gc.store.Update(ctx, n.key, data, registry.Preconditions{ResourceVersion: cur.Rev, UID: string(n.uid())})
		if registry.IsConflict(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("update %s: %w", n.key, err)
		}
		return gc.removeIfFinalized(ctx, n, stored)
	}
	return errTooManyConflicts
}

// removeIfFinalized deletes stored, the new state of n, when it is being
// deleted and nothing holds it any longer. A conflict means another
// writer changed it since, and that writer's update removes it.
func (gc *Collector) removeIfFinalized(ctx context.Context, n *gcNode, stored registry.Object) error {
	obj, err := codec.DecodeStored(n.res, stored.Data)
	if err != nil {
		return err
	}
	if !registry.Finalized(obj) {
		return nil
	}
	_, err = gc.store.Delete(ctx, n.key, registry.Preconditions{ResourceVersion: stored.Rev, UID: string(n.uid())})
	if err != nil && !registry.IsConflict(err) && !registry.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", n.key, err)
	}
	return nil
}

// removeOwnerRefs returns the edit that drops the owner references to
// any of uids.
func removeOwnerRefs(uids ...types.UID) metaEdit {
	return func(md map[string]any) bool {
		return filterList(md, "ownerReferences", func(v any) bool {
			ref, _ := v.(map[string]any)
			for _, uid := range uids {
				if ref["uid"] == string(uid) {
					return false
				}
			}
			return true
		})
	}
}

// removeFinalizer returns the edit that drops finalizer f.
func removeFinalizer(f string) metaEdit {
	return func(md map[string]any) bool {
		return filterList(md, "finalizers", func(v any) bool { return v != f })
	}
}

// unblockOwnerRefs clears blockOwnerDeletion on every owner reference.
func unblockOwnerRefs(md map[string]any) bool {
	refs, _ := md["ownerReferences"].([]any)
	changed := false
	for _, v := range refs {
		if ref, ok := v.(map[string]any); ok && ref["blockOwnerDeletion"] == true {
			ref["blockOwnerDeletion"] = false
			changed = true
		}
	}
	return changed
}

// filterList keeps the items of list field name of md that keep accepts,
// dropping the field when none is left, and reports whether any went.
func filterList(md map[string]any, name string, keep func(any) bool) bool {
	items, _ := md[name].([]any)
	var out []any
	for _, v := range items {
		if keep(v) {
			out = append(out, v)
		}
	}
	if len(out) == len(items) {
		return false
	}
	if len(out) == 0 {
		delete(md, name)
	} else {
		md[name] = out
	}
	return true
}
