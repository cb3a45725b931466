package encryption

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/registry/registrytest"
)

const (
	secretKey    = "/registry/core/secrets/ns/s"
	configMapKey = "/registry/core/configmaps/ns/c"
	// secretValue is the base64 of the secret's value, as stored.
	secretValue = "dG9wLXNlY3JldA=="
)

// fixture is an encrypting Storage over an in-memory one.
type fixture struct {
	inner *registrytest.Storage
	s     registry.Storage
}

func newFixture(t *testing.T, entries ...string) *fixture {
	t.Helper()
	inner := registrytest.New()
	t.Cleanup(func() { _ = inner.Close() })
	return &fixture{inner: inner, s: Storage(inner, mustParse(t, entries...), testLogger(t))}
}

// over returns an encrypting Storage with another configuration over
// the same objects: the node restarted with a new configuration.
func (f *fixture) over(t *testing.T, entries ...string) registry.Storage {
	t.Helper()
	return Storage(f.inner, mustParse(t, entries...), testLogger(t))
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, nil))
}

// tWriter sends log lines to t.Log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// object returns the JSON of an object with a uid, a label and a secret
// value.
func object(kind, ns, name, label string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":%q,"metadata":{"name":%q,"namespace":%q,"uid":"uid-%s","labels":{"l":%q}},"data":{"k":%q}}`,
		kind, name, ns, name, label, secretValue)
}

func mustCreate(t *testing.T, s registry.Storage, key string, obj []byte) registry.Object {
	t.Helper()
	o, err := s.Create(ctx(t), key, obj)
	if err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
	return o
}

func mustGet(t *testing.T, s registry.Storage, key string) registry.Object {
	t.Helper()
	o, err := s.Get(ctx(t), key, registry.ReadOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	return o
}

// wantObject checks that data is the object with the given label at rev.
func wantObject(t *testing.T, data []byte, label string, rev uint64) {
	t.Helper()
	var o struct {
		Metadata struct {
			ResourceVersion string            `json:"resourceVersion"`
			Labels          map[string]string `json:"labels"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("object %s: %v", data, err)
	}
	if o.Data["k"] != secretValue || o.Metadata.Labels["l"] != label || o.Metadata.ResourceVersion != strconv.FormatUint(rev, 10) {
		t.Fatalf("object %s, want label %q, data %q at resourceVersion %d", data, label, secretValue, rev)
	}
}

var (
	gcmK1    = provider("aesgcm", "k1", key32)
	secretsK = entry([]string{"secrets"}, gcmK1)
)

// TestStorageEnvelope writes a secret and a configmap with secrets
// encrypted: the store holds an envelope with nothing but clear metadata
// and the aesgcm value, and reads give the object back.
func TestStorageEnvelope(t *testing.T) {
	f := newFixture(t, secretsK)
	created := mustCreate(t, f.s, secretKey, object("Secret", "ns", "s", "a"))
	wantObject(t, created.Data, "a", created.Rev)
	got := mustGet(t, f.s, secretKey)
	if !bytes.Equal(got.Data, created.Data) || got.Stale {
		t.Fatalf("get %s (stale %v), want the created %s", got.Data, got.Stale, created.Data)
	}

	raw := mustGet(t, f.inner, secretKey).Data
	if bytes.Contains(raw, []byte(secretValue)) || bytes.Contains(raw, []byte(`"l"`)) {
		t.Fatalf("stored form shows the object: %s", raw)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(raw, &env); err != nil || len(env) != 2 {
		t.Fatalf("stored form %s, want an envelope of two members", raw)
	}
	var meta map[string]string
	if err := json.Unmarshal(env["metadata"], &meta); err != nil {
		t.Fatalf("envelope metadata %s: %v", env["metadata"], err)
	}
	want := map[string]string{"name": "s", "namespace": "ns", "resourceVersion": fmt.Sprint(created.Rev), "uid": "uid-s"}
	if !maps.Equal(meta, want) {
		t.Fatalf("envelope metadata %s, want %v", env["metadata"], want)
	}
	var value []byte
	if err := json.Unmarshal(env[encryptedField], &value); err != nil || !bytes.HasPrefix(value, []byte("k8s:enc:aesgcm:v1:k1:")) {
		t.Fatalf("envelope value %q (%v), want an aesgcm k1 value", value, err)
	}

	cm := mustCreate(t, f.s, configMapKey, object("ConfigMap", "ns", "c", "a"))
	if raw := mustGet(t, f.inner, configMapKey).Data; !bytes.Equal(raw, cm.Data) || !bytes.Contains(raw, []byte(secretValue)) {
		t.Fatalf("configmap stored as %s, want it as it is: %s", raw, cm.Data)
	}
}

// TestStorageUpdateDelete checks updates, with the store's UID and
// resourceVersion preconditions on the envelope, and delete's result.
func TestStorageUpdateDelete(t *testing.T) {
	f := newFixture(t, secretsK)
	created := mustCreate(t, f.s, secretKey, object("Secret", "ns", "s", "a"))
	if _, err := f.s.Update(ctx(t), secretKey, object("Secret", "ns", "s", "b"), registry.Preconditions{UID: "other"}); !registry.IsConflict(err) {
		t.Fatalf("update with another uid: %v, want Conflict", err)
	}
	updated, err := f.s.Update(ctx(t), secretKey, object("Secret", "ns", "s", "b"), registry.Preconditions{UID: "uid-s", ResourceVersion: created.Rev})
	if err != nil {
		t.Fatal(err)
	}
	wantObject(t, updated.Data, "b", updated.Rev)
	wantObject(t, mustGet(t, f.s, secretKey).Data, "b", updated.Rev)
	deleted, err := f.s.Delete(ctx(t), secretKey, registry.Preconditions{UID: "uid-s"})
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal(deleted.Data, &m); err != nil || !bytes.Contains(deleted.Data, []byte(secretValue)) {
		t.Fatalf("delete returned %s (%v), want the decrypted object", deleted.Data, err)
	}
}

// TestStoragePredicate lists and watches with a predicate on a label,
// which only the decrypted object shows.
func TestStoragePredicate(t *testing.T) {
	f := newFixture(t, secretsK)
	labelB := func(obj []byte) bool { return bytes.Contains(obj, []byte(`"l":"b"`)) }
	w, err := f.s.Watch(ctx(t), "/registry/core/secrets/", registry.WatchOptions{Recursive: true, Predicate: labelB})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustCreate(t, f.s, "/registry/core/secrets/ns/a", object("Secret", "ns", "a", "a"))
	b := mustCreate(t, f.s, "/registry/core/secrets/ns/b", object("Secret", "ns", "b", "b"))
	l, err := f.s.List(ctx(t), "/registry/core/secrets/ns/", registry.StoreListOptions{Predicate: labelB})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Key != "/registry/core/secrets/ns/b" {
		t.Fatalf("list with label b: %d items, want b", len(l.Items))
	}
	wantObject(t, l.Items[0].Data, "b", b.Rev)
	ev := next(t, w)
	if ev.Type.String() != "ADDED" || ev.Key != b.Key {
		t.Fatalf("watch event %v %s, want ADDED %s", ev.Type, ev.Key, b.Key)
	}
	wantObject(t, ev.Object, "b", b.Rev)

	// Relabelled to a: it stops matching, a Deleted event of its last
	// matching state at the update's revision, decrypted.
	upd, err := f.s.Update(ctx(t), b.Key, object("Secret", "ns", "b", "a"), registry.Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	ev = next(t, w)
	if ev.Type.String() != "DELETED" {
		t.Fatalf("watch event %v, want DELETED", ev.Type)
	}
	wantObject(t, ev.Object, "b", upd.Rev)
	if ev.Prev != nil {
		wantObject(t, ev.Prev, "b", b.Rev)
	}
}

func next(t *testing.T, w registry.Watcher) registry.WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-ctx(t).Done():
		t.Fatal("no watch event")
	}
	return registry.WatchEvent{}
}

// TestStorageStale reads with rotated configurations: stale unless the
// first key of the first provider read the value; a rewrite makes it
// current.
func TestStorageStale(t *testing.T) {
	f := newFixture(t, secretsK)
	mustCreate(t, f.s, secretKey, object("Secret", "ns", "s", "a"))
	both := f.over(t, entry([]string{"secrets"}, provider("aesgcm", "k2", other, "k1", key32)))
	o := mustGet(t, both, secretKey)
	if !o.Stale {
		t.Fatal("read with the second key is not stale")
	}
	l, err := both.List(ctx(t), "/registry/core/secrets/", registry.StoreListOptions{})
	if err != nil || len(l.Items) != 1 || !l.Items[0].Stale {
		t.Fatalf("list: %v, want one stale item", err)
	}
	if _, err := both.Update(ctx(t), secretKey, o.Data, registry.Preconditions{ResourceVersion: o.Rev}); err != nil {
		t.Fatal(err)
	}
	if o := mustGet(t, both, secretKey); o.Stale {
		t.Fatal("read after the rewrite is stale")
	}
	onlyNew := f.over(t, entry([]string{"secrets"}, provider("aesgcm", "k2", other)))
	wantObject(t, mustGet(t, onlyNew, secretKey).Data, "a", mustGet(t, f.inner, secretKey).Rev)
	if _, err := f.s.Get(ctx(t), secretKey, registry.ReadOptions{}); !IsTransformError(err) {
		t.Fatalf("read with only the old key: %v, want a TransformError", err)
	}
}

// TestStorageUnreadable reads values no configured key decrypts: Get and
// List fail with a TransformError, a watch ends with an ERROR event, and
// other resources serve.
func TestStorageUnreadable(t *testing.T) {
	f := newFixture(t, secretsK)
	before := mustCreate(t, f.s, configMapKey, object("ConfigMap", "ns", "c", "a"))
	mustCreate(t, f.s, secretKey, object("Secret", "ns", "s", "a"))
	configs := map[string]registry.Storage{
		"wrong key":          f.over(t, entry([]string{"secrets"}, provider("aesgcm", "k1", other))),
		"missing key":        f.over(t, entry([]string{"secrets"}, provider("aesgcm", "k9", key32))),
		"identity only":      f.over(t, entry([]string{"secrets"}, provider("identity"))),
		"secrets not listed": f.over(t, entry([]string{"configmaps"}, provider("identity"))),
	}
	for name, s := range configs {
		t.Run(name, func(t *testing.T) {
			_, err := s.Get(ctx(t), secretKey, registry.ReadOptions{})
			var te *TransformError
			if !errors.As(err, &te) || te.Key != secretKey || !strings.HasPrefix(err.Error(), `unable to transform key "`+secretKey+`": `) {
				t.Fatalf("get: %v, want a TransformError of %s", err, secretKey)
			}
			for _, pred := range []registry.Predicate{nil, func([]byte) bool { return false }} {
				if _, err := s.List(ctx(t), "/registry/core/secrets/", registry.StoreListOptions{Predicate: pred}); !IsTransformError(err) {
					t.Fatalf("list: %v, want a TransformError", err)
				}
			}
			w, err := s.Watch(ctx(t), "/registry/core/secrets/", registry.WatchOptions{Recursive: true, Revision: before.Rev})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if ev := next(t, w); ev.Type != registry.WatchError || !IsTransformError(ev.Err) {
				t.Fatalf("watch event %v (%v), want a WatchError", ev.Type, ev.Err)
			}
			if _, ok := <-w.ResultChan(); ok {
				t.Fatal("watch goes on after its WatchError")
			}
			wantObject(t, mustGet(t, s, configMapKey).Data, "a", mustGet(t, f.inner, configMapKey).Rev)
		})
	}
}

// TestStorageMovedValue stores a secret's envelope at another key: the
// aesgcm value is bound to its own key and does not read there.
func TestStorageMovedValue(t *testing.T) {
	f := newFixture(t, secretsK)
	mustCreate(t, f.s, secretKey, object("Secret", "ns", "s", "a"))
	raw := mustGet(t, f.inner, secretKey).Data
	moved := "/registry/core/secrets/ns/t"
	mustCreate(t, f.inner, moved, raw)
	if _, err := f.s.Get(ctx(t), moved, registry.ReadOptions{}); !IsTransformError(err) {
		t.Fatalf("get of the moved value: %v, want a TransformError", err)
	}
}

// TestStorageIdentityFirst checks that with identity first objects are
// stored as they are, and encrypted ones still read, stale.
func TestStorageIdentityFirst(t *testing.T) {
	f := newFixture(t, secretsK)
	mustCreate(t, f.s, secretKey, object("Secret", "ns", "s", "a"))
	decrypting := f.over(t, entry([]string{"secrets"}, provider("identity"), gcmK1))
	o := mustGet(t, decrypting, secretKey)
	if !o.Stale {
		t.Fatal("encrypted value read with identity first is not stale")
	}
	if _, err := decrypting.Update(ctx(t), secretKey, o.Data, registry.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	raw := mustGet(t, f.inner, secretKey).Data
	if !bytes.Contains(raw, []byte(secretValue)) {
		t.Fatalf("stored %s, want the plain object", raw)
	}
	if o := mustGet(t, decrypting, secretKey); o.Stale {
		t.Fatal("plain value read with identity first is stale")
	}
	if _, err := f.s.Get(ctx(t), secretKey, registry.ReadOptions{}); !IsTransformError(err) {
		t.Fatalf("plain value read without identity: %v, want a TransformError", err)
	}
	identitySecond := f.over(t, entry([]string{"secrets"}, gcmK1, provider("identity")))
	if o := mustGet(t, identitySecond, secretKey); !o.Stale {
		t.Fatal("plain value read with identity second is not stale")
	}
}
