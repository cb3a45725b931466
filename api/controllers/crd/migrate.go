package crd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/time/rate"
	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// The condition the storage version migration reports on a CRD. Its type
// and reasons are ours: kube-apiserver leaves migration to an external
// migrator (kube-storage-version-migrator, whose StorageVersionMigration
// reports Running, Succeeded and Failed).
const (
	// StorageVersionMigrated is True once every stored object of the CRD
	// is in its storage version and status.storedVersions lists only it.
	StorageVersionMigrated apiextensionsv1.CustomResourceDefinitionConditionType = "StorageVersionMigrated"
	// ReasonMigrating (status False): objects are being rewritten; the
	// message counts them ("migrating N of M objects from [v1] to v2").
	ReasonMigrating = "Migrating"
	// ReasonMigrated (status True): the migration finished and
	// status.storedVersions was trimmed to the storage version.
	ReasonMigrated = "Migrated"
	// ReasonMigrationFailed (status False): an object could not be
	// converted (a conversion webhook down); the message names it and the
	// error. The migration is retried with backoff; storedVersions stays.
	ReasonMigrationFailed = "MigrationFailed"
)

// Errors that end a pass without a MigrationFailed condition: the pass is
// retried (at once for errRestart, after a backoff otherwise).
var (
	errNotLeader = errors.New("crd controller: not leader")
	errNotServed = errors.New("crd controller: no served version of the CRD writes its storage version yet")
	errRestart   = errors.New("crd controller: the CRD changed during the migration")
)

// migrationOptions tune the storage version migration.
type migrationOptions struct {
	// pageSize is the number of objects listed at a time.
	pageSize int64
	// limiter paces the rewrites of every migration of the controller.
	limiter *rate.Limiter
	// pagePause is the pause between two pages, which lets clients' reads
	// and writes in between.
	pagePause time.Duration
	// progressEvery is the least time between two progress writes.
	progressEvery time.Duration
	// backoffMin and backoffMax bound the wait after a failed pass.
	backoffMin, backoffMax time.Duration
}

// defaultMigrationOptions: a few hundred writes a second at most, which
// leaves the log to clients, and the condition updated every 5 seconds.
func defaultMigrationOptions() migrationOptions {
	return migrationOptions{
		pageSize:      500,
		limiter:       rate.NewLimiter(250, 25),
		pagePause:     10 * time.Millisecond,
		progressEvery: 5 * time.Second,
		backoffMin:    time.Second,
		backoffMax:    5 * time.Minute,
	}
}

// migrate makes one migration pass over the CRD named name, if its
// status.storedVersions holds versions other than its storage version:
// every stored object in another version is rewritten in the storage
// version, then storedVersions is trimmed to it. Progress is derived from
// the objects themselves (those in the storage version are skipped), so
// a pass interrupted anywhere is simply started over, by this leader or
// the next. A conversion failure is reported as MigrationFailed; every
// error is returned for the caller to retry.
func (c *Controller) migrate(ctx context.Context, name string) error {
	crd, err := c.getCRD(ctx, name)
	if err != nil {
		return err
	}
	if crd == nil || !needsMigration(crd) {
		return nil
	}
	p := newPass(c, crd)
	err = p.run(ctx)
	var conv *conversionError
	if errors.As(err, &conv) && ctx.Err() == nil {
		if werr := p.writeStatus(ctx, p.failed(conv)); werr != nil {
			c.log.Warn("crd controller: reporting a failed migration", "crd", name, "err", werr)
		}
	}
	return err
}

// needsMigration reports whether crd has objects stored in versions other
// than its storage version, or may have: its storedVersions say so. A CRD
// being deleted or whose names are not accepted is left alone.
func needsMigration(crd *apiextensionsv1.CustomResourceDefinition) bool {
	to, _ := apiextensionshelpers.GetCRDStorageVersion(crd)
	if crd.DeletionTimestamp != nil || crd.Status.AcceptedNames.Plural == "" || to == "" {
		return false
	}
	return !slices.Equal(crd.Status.StoredVersions, []string{to})
}

// storagePrefix is the storage prefix of crd's objects in every
// namespace, shared by all its versions.
func storagePrefix(crd *apiextensionsv1.CustomResourceDefinition) string {
	r := &resource.Resource{Group: crd.Spec.Group, Plural: crd.Status.AcceptedNames.Plural}
	return r.Prefix("")
}

// conversionError is the failure to convert one stored object.
type conversionError struct {
	key string
	err error
}

func (e *conversionError) Error() string {
	return fmt.Sprintf("converting %s: %v", e.key, e.err)
}

func (e *conversionError) Unwrap() error { return e.err }
