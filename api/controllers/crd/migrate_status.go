package crd

import (
	"context"
	"encoding/json"
	"fmt"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/registry"
)

// maxStatusAttempts bounds the status writes of one step that conflict
// with other writers of the CRD (its naming, a client's spec change).
const maxStatusAttempts = 5

// progress writes the Migrating condition unless it was written less than
// progressEvery ago. A MigrationFailed condition stays until a retry gets
// past the failing objects (rewrites one).
func (p *pass) progress(ctx context.Context) error {
	now := p.c.now()
	if !p.reported.IsZero() && now.Sub(p.reported) < p.c.migration.progressEvery {
		return nil
	}
	p.reported = now
	msg := fmt.Sprintf("migrating %d of %d objects from %s to %s", p.seen, p.total, p.fromList(), p.to)
	set := p.condition(apiextensionsv1.ConditionFalse, ReasonMigrating, msg)
	return p.writeStatus(ctx, func(crd *apiextensionsv1.CustomResourceDefinition) {
		if p.rewritten == 0 && failedBefore(crd) {
			return
		}
		set(crd)
	})
}

// failedBefore reports whether crd's last migration attempt failed.
func failedBefore(crd *apiextensionsv1.CustomResourceDefinition) bool {
	cond := apiextensionshelpers.FindCRDCondition(crd, StorageVersionMigrated)
	return cond != nil && cond.Reason == ReasonMigrationFailed
}

// done sets Migrated and trims storedVersions to the storage version.
func (p *pass) done() func(*apiextensionsv1.CustomResourceDefinition) {
	msg := fmt.Sprintf("all %d objects are stored in %s (%d rewritten from %s)", p.seen, p.to, p.rewritten, p.fromList())
	set := p.condition(apiextensionsv1.ConditionTrue, ReasonMigrated, msg)
	return func(crd *apiextensionsv1.CustomResourceDefinition) {
		set(crd)
		crd.Status.StoredVersions = []string{p.to}
	}
}

// failed sets MigrationFailed with err.
func (p *pass) failed(err error) func(*apiextensionsv1.CustomResourceDefinition) {
	msg := fmt.Sprintf("migrating from %s to %s: %v", p.fromList(), p.to, err)
	return p.condition(apiextensionsv1.ConditionFalse, ReasonMigrationFailed, msg)
}

// condition returns a change setting the StorageVersionMigrated condition.
func (p *pass) condition(status apiextensionsv1.ConditionStatus, reason, msg string) func(*apiextensionsv1.CustomResourceDefinition) {
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: StorageVersionMigrated, Status: status, Reason: reason, Message: msg}
	return func(crd *apiextensionsv1.CustomResourceDefinition) {
		apiextensions.SetCondition(&crd.Status, cond, p.c.now())
	}
}

// writeStatus applies set to the CRD as stored now and writes its status
// through the status subresource, with the revision read as the
// precondition; a conflict reads it again. It fails with errRestart once
// the CRD's spec changed since the pass started, or it is being deleted:
// what the pass found no longer holds.
func (p *pass) writeStatus(ctx context.Context, set func(*apiextensionsv1.CustomResourceDefinition)) error {
	for attempt := 1; ; attempt++ {
		crd, err := p.c.getCRD(ctx, p.name)
		if err != nil {
			return err
		}
		if crd == nil || crd.Generation != p.generation || crd.DeletionTimestamp != nil {
			return errRestart
		}
		next := crd.DeepCopy()
		set(next)
		if equality.Semantic.DeepEqual(next.Status, crd.Status) {
			return nil
		}
		_, err = p.c.writeStatus(ctx, next)
		if err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) || attempt == maxStatusAttempts {
			return fmt.Errorf("writing the status of CRD %s: %w", p.name, err)
		}
	}
}

// getCRD reads the CRD named name as stored now; nil when there is none.
func (c *Controller) getCRD(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	o, err := c.reg.Storage().Get(ctx, c.crds.Key("", name), registry.ReadOptions{Consistency: registry.MostRecent})
	if registry.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading CRD %s: %w", name, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(o.Data, crd); err != nil {
		return nil, fmt.Errorf("decoding CRD %s: %w", name, err)
	}
	return crd, nil
}
