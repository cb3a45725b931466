package garbagecollector

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// attemptToDelete collects n, kube's attemptToDeleteItem: with its latest
// state read (Most Recent), its owner references are classified
// (classifyReferences) and
//
//   - with a solid owner it stays, losing only the references to absent
//     owners and to owners waiting for their dependents;
//   - with an owner waiting for its dependents and dependents of its own,
//     it is deleted in foreground (after unblocking its own references if
//     a dependent of it waits too, which would otherwise be a cycle);
//   - otherwise it is deleted, with the policy its finalizers name.
//
// The delete carries n's uid and revision as preconditions; a conflict
// starts over from a fresh read.
func (p *gcPass) attemptToDelete(ctx context.Context, n *gcNode) error {
	for range gcRetries {
		latest, err := p.gc.latest(ctx, n)
		if err != nil || latest == nil || latest.deleting() || len(latest.meta.OwnerReferences) == 0 {
			return err
		}
		err = p.collectLatest(ctx, latest)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return errTooManyConflicts
}

func (p *gcPass) collectLatest(ctx context.Context, n *gcNode) error {
	c, err := p.classify(ctx, n)
	if err != nil {
		return err
	}
	switch {
	case len(c.solid) > 0:
		stale := append(c.dangling, c.waiting...)
		if len(stale) == 0 {
			return nil
		}
		p.gc.log.Debug("removing owner references", "object", n.String(), "owners", stale)
		return p.gc.editMeta(ctx, n, removeOwnerRefs(stale...))
	case len(c.waiting) > 0 && len(p.graph.dependentsOf(n)) > 0:
		if err := p.unblockIfCycle(ctx, n); err != nil {
			return err
		}
		return p.gc.deleteNode(ctx, n, metav1.DeletePropagationForeground)
	}
	return p.gc.deleteNode(ctx, n, registry.PolicyFromFinalizers(&metav1.ObjectMeta{Finalizers: n.meta.Finalizers}))
}

// unblockIfCycle clears blockOwnerDeletion on n's references when one of
// n's dependents is itself waiting for its dependents: n's owner waits for
// n, which may wait for that dependent, which may wait for n's owner.
func (p *gcPass) unblockIfCycle(ctx context.Context, n *gcNode) error {
	for _, d := range p.graph.dependentsOf(n) {
		if d.deletingDependents() {
			p.gc.log.Debug("unblocking owner references to avoid a cycle", "object", n.String(), "dependent", d.String())
			return p.gc.editMeta(ctx, n, unblockOwnerRefs)
		}
	}
	return nil
}

// gcClasses are an object's owner references by the state of their owner:
// solid (present, not deleting in foreground), dangling (absent) and
// waiting (deleting in foreground, waiting for its dependents).
type gcClasses struct {
	solid, dangling, waiting []types.UID
}

// classify sorts n's owner references. An owner present in the snapshot
// and not deleting in foreground is solid; any other is read Most Recent,
// so nothing is ever deleted or unlinked for an owner that exists.
func (p *gcPass) classify(ctx context.Context, n *gcNode) (gcClasses, error) {
	var c gcClasses
	for _, ref := range n.meta.OwnerReferences {
		res, key, err := p.gc.ownerKey(n, ref)
		if err != nil {
			return c, err
		}
		if o := p.graph.byUID[ref.UID]; o != nil && o.key == key && !o.deletingDependents() {
			c.solid = append(c.solid, ref.UID)
			continue
		}
		state, err := p.ownerState(ctx, res, key, ref.UID)
		if err != nil {
			return c, err
		}
		switch state {
		case ownerAbsent:
			c.dangling = append(c.dangling, ref.UID)
		case ownerWaiting:
			c.waiting = append(c.waiting, ref.UID)
		default:
			c.solid = append(c.solid, ref.UID)
		}
	}
	return c, nil
}

// ownerState is what a Most Recent read finds of an owner.
type ownerState int

const (
	ownerPresent ownerState = iota
	ownerAbsent
	ownerWaiting
)

// ownerState reads the owner of res at key with a Most Recent read: absent when
// nothing, or an object with another uid, is there.
func (p *gcPass) ownerState(ctx context.Context, res *resource.Resource, key string, uid types.UID) (ownerState, error) {
	id := gcOwnerID{key: key, uid: string(uid)}
	if p.absent[id] {
		return ownerAbsent, nil
	}
	o, err := p.gc.readNode(ctx, res, key)
	switch {
	case err != nil:
		return ownerPresent, err
	case o == nil || o.uid() != uid:
		p.absent[id] = true
		return ownerAbsent, nil
	case o.deletingDependents():
		return ownerWaiting, nil
	}
	return ownerPresent, nil
}

// errTooManyConflicts ends the work on an object that kept changing under
// the collector; the next pass takes it up again.
var errTooManyConflicts = errors.New("garbagecollector: too many conflicts")
