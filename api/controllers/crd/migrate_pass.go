package crd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/registry"
)

// pass is one migration scan of a CRD's objects, started at one
// generation of the CRD: should its spec (so its storage version) change,
// the pass ends with errRestart and a new one starts.
type pass struct {
	c          *Controller
	name       string
	generation int64
	group      string
	plural     string
	served     []string // the CRD's served versions, in spec order
	to         string   // the storage version
	want       string   // its apiVersion
	from       []string // the other stored versions
	prefix     string

	// total is the number of objects when the scan started, seen the
	// number checked so far and rewritten those written.
	total, seen, rewritten int
	// reported is when progress was last written (zero: never).
	reported time.Time
}

func newPass(c *Controller, crd *apiextensionsv1.CustomResourceDefinition) *pass {
	to, _ := apiextensionshelpers.GetCRDStorageVersion(crd)
	p := &pass{
		c: c, name: crd.Name, generation: crd.Generation,
		group: crd.Spec.Group, plural: crd.Status.AcceptedNames.Plural,
		to:     to,
		want:   schema.GroupVersion{Group: crd.Spec.Group, Version: to}.String(),
		from:   slices.DeleteFunc(slices.Clone(crd.Status.StoredVersions), func(v string) bool { return v == to }),
		prefix: storagePrefix(crd),
	}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			p.served = append(p.served, v.Name)
		}
	}
	return p
}

// run scans every object, then trims storedVersions.
func (p *pass) run(ctx context.Context) error {
	if err := p.scan(ctx); err != nil {
		return err
	}
	return p.writeStatus(ctx, p.done())
}

// scan checks every stored object of the CRD, a page at a time, and
// rewrites those in another version. The list is one snapshot, taken
// after the storage version changed: objects written since are written
// in the storage version. Should compaction expire the snapshot, the scan
// starts over (the objects migrated already are skipped).
func (p *pass) scan(ctx context.Context) error {
	first := registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.MostRecent}, Limit: p.c.migration.pageSize}
	opts := first
	for {
		list, err := p.c.reg.Storage().List(ctx, p.prefix, opts)
		if registry.IsExpired(err) && opts.Continue != "" {
			opts, p.total, p.seen = first, 0, 0
			continue
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", p.prefix, err)
		}
		if opts.Continue == "" {
			p.total = len(list.Items)
			if list.RemainingItemCount != nil {
				p.total += int(*list.RemainingItemCount)
			}
		}
		for _, o := range list.Items {
			if err := p.object(ctx, o); err != nil {
				return err
			}
		}
		if list.Continue == "" {
			return nil
		}
		opts = registry.StoreListOptions{Limit: p.c.migration.pageSize, Continue: list.Continue}
		if err := p.yield(ctx); err != nil {
			return err
		}
	}
}

// object rewrites o unless it is in the storage version, paced by the
// controller's limiter.
func (p *pass) object(ctx context.Context, o registry.Object) error {
	defer func() { p.seen++ }()
	if p.inStorageVersion(o.Data) {
		return nil
	}
	if err := p.progress(ctx); err != nil {
		return err
	}
	if err := p.c.migration.limiter.Wait(ctx); err != nil {
		return err
	}
	if !p.c.reg.Storage().IsLeader() {
		return errNotLeader
	}
	return p.rewrite(ctx, o)
}

// yield pauses between two pages, and ends the pass when this node no
// longer leads.
func (p *pass) yield(ctx context.Context) error {
	t := time.NewTimer(p.c.migration.pagePause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	if !p.c.reg.Storage().IsLeader() {
		return errNotLeader
	}
	return nil
}

// inStorageVersion reports whether the stored JSON data is in the
// storage version.
func (p *pass) inStorageVersion(data []byte) bool {
	return apiVersion(data) == p.want
}

// apiVersion is the apiVersion of stored JSON, "" when unreadable.
func apiVersion(data []byte) string {
	var tm struct {
		APIVersion string `json:"apiVersion"`
	}
	_ = json.Unmarshal(data, &tm)
	return tm.APIVersion
}

// fromList names the versions migrated from, as "[v1, v1beta1]".
func (p *pass) fromList() string {
	return "[" + strings.Join(p.from, ", ") + "]"
}
