package garbagecollector

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// orphanDependents carries out an Orphan delete of owner: the references
// to it are removed from every dependent, then its "orphan" finalizer.
// The finalizer stays until every dependent is unlinked, so a failed pass
// leaves the work for the next one.
func (p *gcPass) orphanDependents(ctx context.Context, owner *gcNode) error {
	for _, d := range p.graph.dependentsOf(owner) {
		p.gc.log.Debug("orphaning dependent", "owner", owner.String(), "dependent", d.String())
		if err := p.gc.editMeta(ctx, d, removeOwnerRefs(owner.uid())); err != nil {
			return err
		}
	}
	p.gc.log.Debug("removing finalizer", "object", owner.String(), "finalizer", metav1.FinalizerOrphanDependents)
	return p.gc.editMeta(ctx, owner, removeFinalizer(metav1.FinalizerOrphanDependents))
}

// deleteDependents carries out a Foreground delete of owner: its
// dependents are collected (each finds its owner waiting for it), and the
// "foregroundDeletion" finalizer goes once no dependent with
// blockOwnerDeletion is left. Dependents being deleted are left to finish.
func (p *gcPass) deleteDependents(ctx context.Context, owner *gcNode) error {
	blocking := 0
	for _, d := range p.graph.dependentsOf(owner) {
		if d.blocks(owner.uid()) {
			blocking++
		}
		if d.deleting() {
			continue
		}
		if err := p.collect(ctx, d); err != nil {
			return err
		}
	}
	if blocking > 0 {
		return nil
	}
	p.gc.log.Debug("removing finalizer", "object", owner.String(), "finalizer", metav1.FinalizerDeleteDependents)
	return p.gc.editMeta(ctx, owner, removeFinalizer(metav1.FinalizerDeleteDependents))
}
