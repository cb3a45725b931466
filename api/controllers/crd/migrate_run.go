package crd

import (
	"context"
	"errors"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// migrations are the storage version migrations of one leader term: at
// most one goroutine per CRD, and the backoff of those that failed.
type migrations struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc // by CRD name
	retry   map[string]backoff            // by CRD name, after a failure
	wg      sync.WaitGroup
}

// backoff is the wait before a failed migration runs again.
type backoff struct {
	failures int
	next     time.Time
}

// startMigration starts the migration of crd unless it has nothing to
// migrate, runs already, or waits after a failure. It runs until done,
// failed or ctx ends (stopMigrations ends it when leadership is lost).
func (c *Controller) startMigration(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) {
	if !needsMigration(crd) {
		return
	}
	m := &c.migrations
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.running[crd.Name]; ok {
		return
	}
	if b, ok := m.retry[crd.Name]; ok && c.now().Before(b.next) {
		return
	}
	if m.running == nil {
		m.running, m.retry = map[string]context.CancelFunc{}, map[string]backoff{}
	}
	mctx, cancel := context.WithCancel(ctx)
	m.running[crd.Name] = cancel
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		err := c.migrate(mctx, crd.Name)
		cancel()
		c.migrationEnded(crd.Name, err, mctx.Err() != nil)
	}()
}

// migrationEnded records the end of the migration of the CRD named name:
// a failure waits its backoff before the next attempt; a pass
// interrupted (leadership lost) or restarted (the CRD changed) runs again
// on the next reconciliation.
func (c *Controller) migrationEnded(name string, err error, cancelled bool) {
	m := &c.migrations
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.running, name)
	if err == nil || cancelled || errors.Is(err, errRestart) || errors.Is(err, errNotLeader) {
		delete(m.retry, name)
		return
	}
	b := m.retry[name]
	b.failures++
	wait := c.migration.backoffMin << min(b.failures-1, 20)
	b.next = c.now().Add(min(wait, c.migration.backoffMax))
	m.retry[name] = b
	c.log.Warn("crd controller: storage version migration", "crd", name, "err", err, "retry in", min(wait, c.migration.backoffMax))
}

// stopMigrations ends every running migration and waits for them; the
// next leader term starts afresh.
func (c *Controller) stopMigrations() {
	m := &c.migrations
	m.mu.Lock()
	for _, cancel := range m.running {
		cancel()
	}
	m.mu.Unlock()
	m.wg.Wait()
	m.mu.Lock()
	clear(m.retry)
	m.mu.Unlock()
}
