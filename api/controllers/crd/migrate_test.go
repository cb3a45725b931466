package crd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

const (
	gizmosCRD    = "gizmos.test.raftapi.io"
	gizmosPrefix = "/registry/test.raftapi.io/gizmos/"
)

// hookStorage is the in-memory storage with a hook called before every
// update of a custom object, to write in between or count the rewrites.
type hookStorage struct {
	*registrytest.Storage
	mu       sync.Mutex
	onUpdate func(key string)
}

func (s *hookStorage) Update(ctx context.Context, key string, obj []byte, pre registry.Preconditions) (registry.Object, error) {
	s.mu.Lock()
	hook := s.onUpdate
	s.mu.Unlock()
	if hook != nil && strings.HasPrefix(key, gizmosPrefix) {
		hook(key)
	}
	return s.Storage.Update(ctx, key, obj, pre)
}

func (s *hookStorage) setHook(hook func(key string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onUpdate = hook
}

// migration is a CRD of two versions, v1 and v2, both served, with n
// objects stored in v1, and the controller that migrates them.
type migration struct {
	t       *testing.T
	c       *Controller
	reg     *registry.Registry
	storage *hookStorage
	crds    *resource.Resource
}

// newMigration stores a CRD whose storage version is v1 and n gizmos
// g0…g<n-1> in it, each with spec.n = its number.
func newMigration(t *testing.T, n int) *migration {
	t.Helper()
	storage := &hookStorage{Storage: registrytest.New()}
	t.Cleanup(func() { _ = storage.Close() })
	reg := registry.New(resource.NewRegistry(builtin.Resources()...), storage, registry.Options{})
	builtins := reg.Resources().All()
	crds := apiextensions.CRDResource()
	reg.Register(crds)
	m := &migration{t: t, reg: reg, storage: storage, crds: crds}
	m.c = m.newController()
	crd := things("gizmos", "Gizmo")
	v2 := crd.Spec.Versions[0]
	v2.Name, v2.Storage = "v2", false
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	create(t, reg, crds, "", crd)
	m.c.builtins = builtins
	m.c.reconcile(context.Background())
	m.publish()
	for i := range n {
		m.createGizmo("v1", i)
	}
	return m
}

// newController returns a controller of the fixture's registry that
// rewrites as fast as it can, 7 objects a page.
func (m *migration) newController() *Controller {
	c := New(m.reg, m.crds, nil, slog.New(slog.DiscardHandler), time.Now)
	c.migration.limiter = rate.NewLimiter(rate.Inf, 1)
	c.migration.pageSize = 7
	c.migration.pagePause = 0
	return c
}

func (m *migration) createGizmo(version string, i int) {
	m.t.Helper()
	create(m.t, m.reg, m.resource(version), "default", map[string]any{
		"apiVersion": "test.raftapi.io/" + version, "kind": "Gizmo",
		"metadata": map[string]any{"name": fmt.Sprintf("g%d", i)},
		"spec":     map[string]any{"n": int64(i)},
	})
}

// publish serves the versions of the CRD as stored, as every node's
// apiextensions.Serving does.
func (m *migration) publish() {
	m.t.Helper()
	rs, err := apiextensions.Resources(get(m.t, m.reg, m.crds, gizmosCRD), nil)
	if err != nil {
		m.t.Fatal(err)
	}
	for _, r := range rs {
		m.reg.Register(r)
	}
}

func (m *migration) resource(version string) *resource.Resource {
	return m.reg.Resources().Get(schema.GroupVersionResource{Group: "test.raftapi.io", Version: version, Resource: "gizmos"})
}

// switchToV2 makes v2 the storage version and serves it.
func (m *migration) switchToV2() {
	m.t.Helper()
	crd := get(m.t, m.reg, m.crds, gizmosCRD)
	crd.Spec.Versions[0].Storage, crd.Spec.Versions[1].Storage = false, true
	if _, err := m.reg.Store(m.crds).Update(context.Background(), "", crd.Name, crd, registry.WriteOptions{}); err != nil {
		m.t.Fatal(err)
	}
	if got := get(m.t, m.reg, m.crds, gizmosCRD).Status.StoredVersions; !slices.Equal(got, []string{"v1", "v2"}) {
		m.t.Fatalf("storedVersions after the switch = %v, want [v1 v2]", got)
	}
	m.publish()
}

// stored returns every stored gizmo by key.
func (m *migration) stored() map[string]registry.Object {
	m.t.Helper()
	list, err := m.storage.List(context.Background(), gizmosPrefix, registry.StoreListOptions{ReadOptions: registry.ReadOptions{Consistency: registry.MostRecent}})
	if err != nil {
		m.t.Fatal(err)
	}
	out := map[string]registry.Object{}
	for _, o := range list.Items {
		out[o.Key] = o
	}
	return out
}

// versions counts the stored gizmos by apiVersion.
func (m *migration) versions() map[string]int {
	out := map[string]int{}
	for _, o := range m.stored() {
		out[apiVersion(o.Data)]++
	}
	return out
}

// condition returns the CRD's StorageVersionMigrated condition and its
// storedVersions.
func (m *migration) condition() (*apiextensionsv1.CustomResourceDefinitionCondition, []string) {
	crd := get(m.t, m.reg, m.crds, gizmosCRD)
	return apiextensionshelpers.FindCRDCondition(crd, StorageVersionMigrated), crd.Status.StoredVersions
}

// wantMigrated checks that every gizmo is stored in v2 and the CRD says
// so.
func (m *migration) wantMigrated() {
	m.t.Helper()
	for key, o := range m.stored() {
		if v := apiVersion(o.Data); v != "test.raftapi.io/v2" {
			m.t.Errorf("%s stored in %s, want test.raftapi.io/v2", key, v)
		}
	}
	cond, stored := m.condition()
	if !slices.Equal(stored, []string{"v2"}) {
		m.t.Errorf("storedVersions = %v, want [v2]", stored)
	}
	if cond == nil || cond.Status != apiextensionsv1.ConditionTrue || cond.Reason != ReasonMigrated {
		m.t.Errorf("StorageVersionMigrated = %+v, want True Migrated", cond)
	}
}

// meaning is a stored object's content but its apiVersion and
// resourceVersion: what a migration must keep.
func meaning(t *testing.T, data []byte) map[string]any {
	t.Helper()
	m, err := codec.ContentMap(data)
	if err != nil {
		t.Fatal(err)
	}
	delete(m, "apiVersion")
	md := maps.Clone(m["metadata"].(map[string]any))
	delete(md, "resourceVersion")
	m["metadata"] = md
	return m
}

// run runs c until the returned stop is called, which waits for it.
func run(c *Controller) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// waitCRD waits until the stored CRD satisfies ok, watching it.
func (m *migration) waitCRD(what string, ok func(*apiextensionsv1.CustomResourceDefinition) bool) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := m.storage.Watch(ctx, m.crds.Key("", gizmosCRD), registry.WatchOptions{Revision: m.storage.Revision()})
	if err != nil {
		m.t.Fatal(err)
	}
	defer w.Stop()
	if ok(get(m.t, m.reg, m.crds, gizmosCRD)) {
		return
	}
	for ev := range w.ResultChan() {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(ev.Object, crd); err == nil && ok(crd) {
			return
		}
	}
	cond, stored := m.condition()
	m.t.Fatalf("timed out waiting for %s; StorageVersionMigrated = %+v, storedVersions %v", what, cond, stored)
}

func migratedReason(reason string) func(*apiextensionsv1.CustomResourceDefinition) bool {
	return func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		c := apiextensionshelpers.FindCRDCondition(crd, StorageVersionMigrated)
		return c != nil && c.Reason == reason
	}
}

// TestMigrateRewritesAndTrims switches the storage version of a CRD with
// objects in v1 to v2: one pass rewrites every object in v2 (a MODIFIED
// event each, a new resourceVersion, the same content), trims
// storedVersions to [v2] and reports Migrated; a second pass changes
// nothing.
func TestMigrateRewritesAndTrims(t *testing.T) {
	m := newMigration(t, 25)
	m.switchToV2()
	before := m.stored()
	w, err := m.storage.Watch(context.Background(), gizmosPrefix, registry.WatchOptions{Revision: m.storage.Revision(), Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	if err := m.c.migrate(context.Background(), gizmosCRD); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	m.wantMigrated()
	after := m.stored()
	if len(after) != len(before) {
		t.Fatalf("%d objects after the migration, want %d", len(after), len(before))
	}
	for key, o := range after {
		if o.Rev == before[key].Rev {
			t.Errorf("%s kept resourceVersion %d", key, o.Rev)
		}
		if got, want := meaning(t, o.Data), meaning(t, before[key].Data); !reflect.DeepEqual(got, want) {
			t.Errorf("%s changed meaning:\n got %v\nwant %v", key, got, want)
		}
	}
	modified := map[string]bool{}
	for range after {
		ev := <-w.ResultChan()
		if ev.Type != raftstore.Modified || ev.Rev != after[ev.Key].Rev {
			t.Errorf("event %v %s at %d, want MODIFIED at %d", ev.Type, ev.Key, ev.Rev, after[ev.Key].Rev)
		}
		modified[ev.Key] = true
	}
	if len(modified) != len(after) {
		t.Errorf("MODIFIED events for %d objects, want %d", len(modified), len(after))
	}
	if cond, _ := m.condition(); cond.Message != "all 25 objects are stored in v2 (25 rewritten from [v1])" {
		t.Errorf("message = %q", cond.Message)
	}

	rv := get(t, m.reg, m.crds, gizmosCRD).ResourceVersion
	if err := m.c.migrate(context.Background(), gizmosCRD); err != nil {
		t.Fatal(err)
	}
	if got := get(t, m.reg, m.crds, gizmosCRD).ResourceVersion; got != rv {
		t.Errorf("a second pass rewrote the migrated CRD (resourceVersion %s → %s)", rv, got)
	}
}

// TestMigrateNothingToMigrate trims storedVersions at once, rewriting
// nothing, when no object is in another version.
func TestMigrateNothingToMigrate(t *testing.T) {
	for _, tt := range []struct {
		name    string
		objects int
	}{
		{"no objects", 0},
		{"objects written after the switch", 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMigration(t, 0)
			m.switchToV2()
			for i := range tt.objects {
				m.createGizmo("v1", i)
			}
			before := m.stored()
			crdRev := m.storage.Revision()
			if err := m.c.migrate(context.Background(), gizmosCRD); err != nil {
				t.Fatal(err)
			}
			m.wantMigrated()
			if got := m.storage.Revision(); got != crdRev+1 {
				t.Errorf("the pass wrote %d times, want once (the status)", got-crdRev)
			}
			for key, o := range m.stored() {
				if o.Rev != before[key].Rev {
					t.Errorf("%s rewritten", key)
				}
			}
		})
	}
}

// TestMigrateProgress follows the condition through a pass: Migrating
// with a count before each rewrite when every write may report, only the
// first when they are throttled, then Migrated.
func TestMigrateProgress(t *testing.T) {
	all := []string{
		"False Migrating migrating 0 of 4 objects from [v1] to v2",
		"False Migrating migrating 1 of 4 objects from [v1] to v2",
		"False Migrating migrating 2 of 4 objects from [v1] to v2",
		"False Migrating migrating 3 of 4 objects from [v1] to v2",
		"True Migrated all 4 objects are stored in v2 (4 rewritten from [v1])",
	}
	for _, tt := range []struct {
		name  string
		every time.Duration
		want  []string
	}{
		{"every rewrite", 0, all},
		{"throttled", time.Hour, []string{all[0], all[4]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMigration(t, 4)
			m.switchToV2()
			m.c.migration.pageSize = 3
			m.c.migration.progressEvery = tt.every
			w, err := m.storage.Watch(context.Background(), m.crds.Key("", gizmosCRD), registry.WatchOptions{Revision: m.storage.Revision()})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if err := m.c.migrate(context.Background(), gizmosCRD); err != nil {
				t.Fatal(err)
			}
			var got []string
			for len(got) < len(tt.want) {
				crd := &apiextensionsv1.CustomResourceDefinition{}
				if err := json.Unmarshal((<-w.ResultChan()).Object, crd); err != nil {
					t.Fatal(err)
				}
				c := apiextensionshelpers.FindCRDCondition(crd, StorageVersionMigrated)
				got = append(got, fmt.Sprintf("%s %s %s", c.Status, c.Reason, c.Message))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("conditions written:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestMigrateConflict writes an object between the migration's read and
// its rewrite: the client's write is kept, whichever version it was
// written in, and a deleted object is skipped.
func TestMigrateConflict(t *testing.T) {
	for _, tt := range []struct {
		name      string
		interfere func(m *migration, key string)
		want      map[string]any // the spec of g3 afterwards; nil: gone
		rewritten bool           // whether the migration rewrote the client's write
	}{
		{"client wrote in the storage version", func(m *migration, key string) { m.clientWrite(key, "test.raftapi.io/v2") }, map[string]any{"n": int64(3), "client": "wrote"}, false},
		{"client wrote in an old version", func(m *migration, key string) { m.clientWrite(key, "test.raftapi.io/v1") }, map[string]any{"n": int64(3), "client": "wrote"}, true},
		{"client deleted it", func(m *migration, key string) {
			if _, err := m.storage.Storage.Delete(context.Background(), key, registry.Preconditions{}); err != nil {
				m.t.Error(err)
			}
		}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMigration(t, 10)
			m.switchToV2()
			key := gizmosPrefix + "default/g3"
			var once sync.Once
			var clientRev uint64
			m.storage.setHook(func(k string) {
				if k == key {
					once.Do(func() {
						tt.interfere(m, key)
						clientRev = m.storage.Revision()
					})
				}
			})
			if err := m.c.migrate(context.Background(), gizmosCRD); err != nil {
				t.Fatal(err)
			}
			m.wantMigrated()
			o, ok := m.stored()[key]
			if tt.want == nil {
				if ok {
					t.Errorf("the deleted %s is back", key)
				}
				return
			}
			if spec := meaning(t, o.Data)["spec"]; !reflect.DeepEqual(spec, normalize(t, tt.want)) {
				t.Errorf("spec = %v, want the client's %v", spec, tt.want)
			}
			if rewritten := o.Rev != clientRev; rewritten != tt.rewritten {
				t.Errorf("client's write rewritten = %v, want %v", rewritten, tt.rewritten)
			}
		})
	}
}

// clientWrite stores the object at key with spec.client set, in version
// apiVersion, as a client (or a server that has not applied the storage
// version change) would, straight into the storage.
func (m *migration) clientWrite(key, apiVersion string) {
	o, err := m.storage.Get(context.Background(), key, registry.ReadOptions{Consistency: registry.MostRecent})
	if err != nil {
		m.t.Error(err)
		return
	}
	c, err := codec.ContentMap(o.Data)
	if err != nil {
		m.t.Error(err)
		return
	}
	c["apiVersion"] = apiVersion
	c["spec"].(map[string]any)["client"] = "wrote"
	data, _ := json.Marshal(c)
	if _, err := m.storage.Storage.Update(context.Background(), key, data, registry.Preconditions{ResourceVersion: o.Rev}); err != nil {
		m.t.Error(err)
	}
}

// normalize returns v as decoded from its JSON (numbers as float64 or
// int64 as ContentMap decodes them).
func normalize(t *testing.T, v map[string]any) any {
	t.Helper()
	b, err := json.Marshal(map[string]any{"spec": v})
	if err != nil {
		t.Fatal(err)
	}
	m, err := codec.ContentMap(b)
	if err != nil {
		t.Fatal(err)
	}
	return m["spec"]
}

// TestMigrateKeepsConcurrentWrites runs client writes, through both
// versions, while a pass migrates: every object ends in v2 holding the
// last write acknowledged to its client.
func TestMigrateKeepsConcurrentWrites(t *testing.T) {
	const n = 60
	m := newMigration(t, n)
	m.switchToV2()
	m.c.migration.limiter = rate.NewLimiter(600, 1) // about 100ms for the pass
	ctx, cancel := context.WithCancel(context.Background())
	last := make([]map[string]int, 2)
	var wg sync.WaitGroup
	for writer, version := range []string{"v1", "v2"} {
		last[writer] = map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.write(ctx, m.resource(version), writer, n, last[writer])
		}()
	}
	err := m.c.migrate(context.Background(), gizmosCRD)
	cancel()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	m.wantMigrated()
	stored := m.stored()
	if len(stored) != n {
		t.Fatalf("%d objects, want %d", len(stored), n)
	}
	writes := 0
	for writer := range last {
		for name, want := range last[writer] {
			writes++
			spec := meaning(t, stored[gizmosPrefix+"default/"+name].Data)["spec"].(map[string]any)
			if got := spec[fmt.Sprintf("w%d", writer)]; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: writer %d's last acknowledged write is %d, stored %v", name, writer, want, got)
			}
		}
	}
	t.Logf("%d (writer, object) pairs written by clients during the migration", writes)
	if writes == 0 {
		t.Error("no client write during the migration")
	}
}

// write updates the n gizmos through res until ctx ends, writer w
// setting spec.w<w> to a counter, and records in last the last value each
// object was acknowledged with.
func (m *migration) write(ctx context.Context, res *resource.Resource, w, n int, last map[string]int) {
	store := m.reg.Store(res)
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("g%d", (i*7+w)%n)
		o, err := store.Get(context.Background(), "default", name, registry.GetOptions{})
		if err != nil {
			m.t.Error(err)
			return
		}
		obj, err := codec.DecodeStored(res, o.Data)
		if err != nil {
			m.t.Error(err)
			return
		}
		u := obj.(*unstructured.Unstructured)
		if err := unstructured.SetNestedField(u.Object, int64(i), "spec", fmt.Sprintf("w%d", w)); err != nil {
			m.t.Error(err)
			return
		}
		_, err = store.Update(context.Background(), "default", name, u, registry.WriteOptions{})
		switch {
		case err == nil:
			last[name] = i
		case !apierrors.IsConflict(err):
			m.t.Error(err)
			return
		}
	}
}

// TestMigrateResumesAfterLeaderChange loses leadership in the middle of
// a migration: the leader stops at once, leaving storedVersions, and a new
// leader's controller rewrites only the objects left and trims.
func TestMigrateResumesAfterLeaderChange(t *testing.T) {
	const n = 30
	m := newMigration(t, n)
	before := m.stored()
	m.switchToV2()
	var mu sync.Mutex
	rewrites := 0
	lost := make(chan struct{})
	m.storage.setHook(func(string) {
		mu.Lock()
		defer mu.Unlock()
		if rewrites++; rewrites == 10 {
			m.storage.SetLeader(false)
			close(lost)
		}
	})
	stop := run(m.c)
	<-lost
	stop()

	first := m.versions()["test.raftapi.io/v2"]
	if first == 0 || first >= n {
		t.Fatalf("the first leader migrated %d of %d objects before losing leadership, want some", first, n)
	}
	if cond, stored := m.condition(); !slices.Equal(stored, []string{"v1", "v2"}) || cond == nil || cond.Reason != ReasonMigrating {
		t.Fatalf("after the first leader: storedVersions %v, condition %+v; want [v1 v2], Migrating", stored, cond)
	}

	mu.Lock()
	rewrites = 0
	mu.Unlock()
	m.storage.setHook(func(string) {
		mu.Lock()
		defer mu.Unlock()
		rewrites++
	})
	m.storage.SetLeader(true)
	next := m.newController()
	stop = run(next)
	m.waitCRD("Migrated", migratedReason(ReasonMigrated))
	stop()

	m.wantMigrated()
	if rewrites != n-first {
		t.Errorf("the new leader rewrote %d objects, want the %d left", rewrites, n-first)
	}
	for key, o := range m.stored() {
		if got, want := meaning(t, o.Data), meaning(t, before[key].Data); !reflect.DeepEqual(got, want) {
			t.Errorf("%s changed meaning:\n got %v\nwant %v", key, got, want)
		}
	}
}

// failingSchema fails to convert the stored object named fail, as a
// conversion webhook that is down.
type failingSchema struct {
	resource.Schema
	fail string
}

var errWebhookDown = errors.New(`conversion webhook for test.raftapi.io/v1, Kind=Gizmo failed: Post "https://convert.example:443/convert": connection refused`)

func (s failingSchema) Stored(obj map[string]any) error {
	if md, _ := obj["metadata"].(map[string]any); md["name"] == s.fail {
		return apierrors.NewInternalError(errWebhookDown)
	}
	return s.Schema.Stored(obj)
}

// TestMigrateFailureRetries cannot convert one object: the condition says
// MigrationFailed with the error and storedVersions stays; once the
// conversion works again a retry finishes.
func TestMigrateFailureRetries(t *testing.T) {
	m := newMigration(t, 10)
	m.switchToV2()
	broken := *m.resource("v2")
	broken.Schema = failingSchema{Schema: broken.Schema, fail: "g4"}
	m.reg.Register(&broken)
	m.c.migration.backoffMin, m.c.migration.backoffMax = 10*time.Millisecond, 50*time.Millisecond

	stop := run(m.c)
	defer stop()
	m.waitCRD("MigrationFailed", migratedReason(ReasonMigrationFailed))
	cond, stored := m.condition()
	if cond.Status != apiextensionsv1.ConditionFalse || !strings.Contains(cond.Message, "default/g4") || !strings.Contains(cond.Message, "connection refused") {
		t.Errorf("StorageVersionMigrated = %+v, want False naming default/g4 and the error", cond)
	}
	if !slices.Equal(stored, []string{"v1", "v2"}) {
		t.Errorf("storedVersions after a failure = %v, want [v1 v2]", stored)
	}
	if v := apiVersion(m.stored()[gizmosPrefix+"default/g4"].Data); v != "test.raftapi.io/v1" {
		t.Errorf("the unconvertible object is stored in %s", v)
	}

	m.publish()
	m.waitCRD("Migrated", migratedReason(ReasonMigrated))
	stop()
	m.wantMigrated()
}
