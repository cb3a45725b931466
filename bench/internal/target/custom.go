package target

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// Custom drives the objects of a custom resource through one of its
// versions on a raftapi cluster: each object holds its value in one
// string field of spec, named in that version's schema.
type Custom struct {
	// name names the target in the report.
	name    string
	clients []*kubeapi.Client // one per node
	res     kubeapi.Objects
	kind    string
	field   string // the spec field holding the value
	prefix  string // of every space's namespace

	rvs     sync.Map // namespace/name → the resourceVersion last written
	watches watchPool
}

var _ figures.Target = (*Custom)(nil)

// CustomConfig describes a Custom target.
type CustomConfig struct {
	// Name names the target in the report.
	Name string
	// Resource is the custom resource and the version requests go
	// through; Kind its kind.
	Resource kubeapi.Objects
	Kind     string
	// Field is the field of spec that holds the value in that version.
	Field string
	// NamespacePrefix starts the namespace of every space, so that
	// targets on one resource keep their objects apart.
	NamespacePrefix string
}

// NewCustom returns the target of cfg on the nodes' clients (one per
// node), with newTransport for the watches' connections.
func NewCustom(cfg CustomConfig, clients []*kubeapi.Client, newTransport func() *http.Transport) *Custom {
	return &Custom{name: cfg.Name, clients: clients, res: cfg.Resource, kind: cfg.Kind, field: cfg.Field,
		prefix: cfg.NamespacePrefix, watches: watchPool{nodes: clients, newTransport: newTransport}}
}

// Name implements figures.Target.
func (t *Custom) Name() string { return t.name }

func (t *Custom) ns(space string) string { return t.prefix + space }

func (t *Custom) client(c int) *kubeapi.Client { return t.clients[c%len(t.clients)] }

// Prepare creates space's namespace.
func (t *Custom) Prepare(ctx context.Context, space string) error {
	return t.clients[0].CreateNamespace(ctx, t.ns(space))
}

// body is an object holding value, conditional on rv when set.
func (t *Custom) body(ns, name, rv, value string) map[string]any {
	meta := map[string]any{"name": name, "namespace": ns}
	if rv != "" {
		meta["resourceVersion"] = rv
	}
	return map[string]any{"apiVersion": t.res.Group + "/" + t.res.Version, "kind": t.kind,
		"metadata": meta, "spec": map[string]any{t.field: value}}
}

// Create creates an object holding value.
func (t *Custom) Create(ctx context.Context, c int, space, name, value string) error {
	ns := t.ns(space)
	o, err := t.client(c).CreateObject(ctx, t.res, ns, t.body(ns, name, "", value))
	if err != nil {
		return err
	}
	t.rvs.Store(ns+"/"+name, o.ResourceVersion)
	return nil
}

// Update replaces the object conditionally on the resourceVersion this
// target last wrote for it.
func (t *Custom) Update(ctx context.Context, c int, space, name, value string) error {
	ns := t.ns(space)
	rv, ok := t.rvs.Load(ns + "/" + name)
	if !ok {
		return fmt.Errorf("target: update %s/%s: not written here", ns, name)
	}
	o, err := t.client(c).UpdateObject(ctx, t.res, ns, name, t.body(ns, name, rv.(string), value))
	if err != nil {
		return err
	}
	t.rvs.Store(ns+"/"+name, o.ResourceVersion)
	return nil
}

// Delete deletes the object.
func (t *Custom) Delete(ctx context.Context, c int, space, name string) error {
	ns := t.ns(space)
	if err := t.client(c).DeleteObject(ctx, t.res, ns, name); err != nil {
		return err
	}
	t.rvs.Delete(ns + "/" + name)
	return nil
}

// Get reads the object at Most Recent; stale reads are not asked of a
// Custom target.
func (t *Custom) Get(ctx context.Context, c int, space, name string, stale bool) error {
	if stale {
		return fmt.Errorf("target: %s: Any reads are not measured here", t.name)
	}
	_, err := t.client(c).GetObject(ctx, t.res, t.ns(space), name)
	return err
}

// List lists the namespace's objects, Most Recent, in one request.
func (t *Custom) List(ctx context.Context, c int, space string) (int, error) {
	p, err := t.client(c).ListObjects(ctx, t.res, t.ns(space), kubeapi.ListOptions{})
	if err != nil {
		return 0, err
	}
	return p.Count(), nil
}

// Watch opens a watch of the namespace's objects on node w mod 3 from its
// current resourceVersion (a Most Recent list of one item), on the
// connections of w's group of watchers.
func (t *Custom) Watch(ctx context.Context, w int, space string) (figures.Stream, error) {
	cl := t.watches.client(w)
	ns := t.ns(space)
	p, err := cl.ListObjects(ctx, t.res, ns, kubeapi.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("target: watch %s: %w", ns, err)
	}
	s, err := cl.WatchObjects(ctx, t.res, ns, p.ResourceVersion)
	if err != nil {
		return nil, err
	}
	return objectStream{s}, nil
}
