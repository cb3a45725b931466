package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/encryption"
	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// aesKey is one named key of an aesgcm provider.
type aesKey struct{ name, secret string }

// newAESKey returns a 32-byte key named name whose bytes are all b.
func newAESKey(name string, b byte) aesKey {
	return aesKey{name, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, 32))}
}

// aesgcmSecrets loads, from a file as --encryption-provider-config does,
// a configuration that encrypts secrets with aesgcm and keys, the first
// writing.
func aesgcmSecrets(t *testing.T, keys ...aesKey) *encryption.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "      - name: %s\n        secret: %s\n", k.name, k.secret)
	}
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := encryption.LoadFile(path)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	return cfg
}

// newEncryptedNode starts a one-node cluster and serves the API over it
// with cfg; it returns once the default namespace exists.
func newEncryptedNode(t *testing.T, cfg *encryption.Config) (*storetest.Cluster, *testServer) {
	t.Helper()
	c := storetest.NewCluster(t, 1, func(c *raftstore.Config) { c.WaitTimeout = waitTimeout })
	s := serveEncrypted(t, c, cfg, nil)
	waitFor(t, "namespace default", func() bool {
		return s.do(t, http.MethodGet, "/api/v1/namespaces/default", nil).Code == http.StatusOK
	})
	return c, s
}

// serveEncrypted serves the API over the node of c with cfg: the node
// restarted with another --encryption-provider-config. Its logs go to
// t.Log and, when set, to logs.
func serveEncrypted(t *testing.T, c *storetest.Cluster, cfg *encryption.Config, logs *logBuffer) *testServer {
	t.Helper()
	return serveWith(t, c, 0, api.Options{Encryption: cfg, Logger: slog.New(slog.NewTextHandler(logWriter{t, logs}, nil))})
}

// logWriter sends log lines to t.Log and, when set, to a logBuffer.
type logWriter struct {
	t    *testing.T
	logs *logBuffer
}

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	if w.logs != nil {
		w.logs.mu.Lock()
		w.logs.b.Write(p)
		w.logs.mu.Unlock()
	}
	return len(p), nil
}

// logBuffer collects log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// secretPath returns the path of the secrets of ns, or of one of them.
func secretPath(ns string, name ...string) string {
	p := "/api/v1/namespaces/" + ns + "/secrets"
	if len(name) > 0 {
		p += "/" + name[0]
	}
	return p
}

// newSecret returns a secret holding value under "password", and
// annotated with note.
func newSecret(name, value, note string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "db"}, Annotations: map[string]string{"note": note}},
		Data:       map[string][]byte{"password": []byte(value)},
	}
}

// getSecret reads ns/name through s and requires a 200.
func getSecret(t *testing.T, s *testServer, ns, name string) *corev1.Secret {
	t.Helper()
	var sec corev1.Secret
	s.do(t, http.MethodGet, secretPath(ns, name), nil).wantCode(t, http.StatusOK).decode(t, &sec)
	return &sec
}

// listSecrets lists path through s and requires a 200.
func listSecrets(t *testing.T, s *testServer, path string) *corev1.SecretList {
	t.Helper()
	var l corev1.SecretList
	s.do(t, http.MethodGet, path, nil).wantCode(t, http.StatusOK).decode(t, &l)
	return &l
}

// storedValues returns the raw stored form of every secret, by key.
func storedValues(t *testing.T, store *raftstore.Store) map[string][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), eventually)
	defer cancel()
	l, err := store.List(ctx, "/registry/core/secrets/", raftstore.ListOptions{})
	if err != nil {
		t.Fatalf("store list: %v", err)
	}
	out := map[string][]byte{}
	for _, o := range l.Items {
		out[o.Key] = o.Data
	}
	return out
}

// encryptedValue returns the provider value inside an envelope.
func encryptedValue(t *testing.T, key string, stored []byte) []byte {
	t.Helper()
	var env struct {
		Value []byte `json:"raftapi.io/encrypted"`
	}
	if err := json.Unmarshal(stored, &env); err != nil || env.Value == nil {
		t.Fatalf("%s is stored as %s, want an encryption envelope", key, truncate(stored))
	}
	return env.Value
}

// TestEncryptionAtRest writes secrets with an aesgcm configuration and
// checks that neither their values (raw or base64) nor any other part of
// them reaches the node's files — raft log, state, snapshots — or a
// backup, while the API reads them back and a configmap, not configured,
// stays plain.
func TestEncryptionAtRest(t *testing.T) {
	c, s := newEncryptedNode(t, aesgcmSecrets(t, newAESKey("key1", 1)))
	ns := newNamespace(t, s)
	var markers []string
	for i := range 5 {
		value, note := fmt.Sprintf("hunter2-plaintext-%d", i), fmt.Sprintf("annotation-marker-%d", i)
		markers = append(markers, value, base64.StdEncoding.EncodeToString([]byte(value)), note)
		s.do(t, http.MethodPost, secretPath(ns), newSecret(fmt.Sprintf("s%d", i), value, note)).wantCode(t, http.StatusCreated)
	}
	cmValue := "configmap-value-in-the-clear"
	createCM(t, s, ns, configMap("c", nil, map[string]string{"k": cmValue}))

	for i := range 5 {
		if got := string(getSecret(t, s, ns, fmt.Sprintf("s%d", i)).Data["password"]); got != fmt.Sprintf("hunter2-plaintext-%d", i) {
			t.Errorf("secret s%d reads %q", i, got)
		}
	}
	if l := listSecrets(t, s, secretPath(ns)+"?labelSelector=app%3Ddb"); len(l.Items) != 5 || string(l.Items[4].Data["password"]) != "hunter2-plaintext-4" {
		t.Fatalf("list by label: %d items, want the 5 secrets decrypted", len(l.Items))
	}
	for key, stored := range storedValues(t, s.Store) {
		if v := encryptedValue(t, key, stored); !bytes.HasPrefix(v, []byte("k8s:enc:aesgcm:v1:key1:")) {
			t.Errorf("%s holds %q, want an aesgcm key1 value", key, v[:min(len(v), 24)])
		}
	}

	if err := s.Store.Raft().Snapshot().Error(); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	var backup bytes.Buffer
	if _, err := s.Store.WriteSnapshot(context.Background(), &backup); err != nil {
		t.Fatalf("backup: %v", err)
	}
	files := map[string][]byte{"backup": backup.Bytes()}
	snapshots := 0
	err := filepath.WalkDir(c.Nodes[0].Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = data
		if strings.Contains(path, "snapshots") {
			snapshots++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if snapshots == 0 {
		t.Fatalf("no snapshot file among %v", slices.Sorted(mapKeys(files)))
	}
	for name, data := range files {
		for _, m := range markers {
			if bytes.Contains(data, []byte(m)) {
				t.Errorf("%s holds %q in the clear", name, m)
			}
		}
	}
	// The scan sees what is stored: the plain configmap is in the raft
	// log (the segments in wal/), the state and the backup.
	for _, name := range []string{"wal", "state.db", "backup"} {
		found := false
		for path, data := range files {
			in := filepath.Base(path) == name || filepath.Base(filepath.Dir(path)) == name
			found = found || (in && bytes.Contains(data, []byte(cmValue)))
		}
		if !found {
			t.Errorf("configmap value not found in %s among %v", name, slices.Sorted(mapKeys(files)))
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// secretWriters keep creating and updating secrets through the server
// current points to, across server restarts: a request cut by a restart
// is sent again to the new server.
type secretWriters struct {
	ns      string
	current *atomic.Pointer[testServer]
	stopc   chan struct{}
	wg      sync.WaitGroup
	writes  atomic.Int64

	mu      sync.Mutex
	created []string
	errs    []string
}

// startWriters starts n writers in ns.
func startWriters(t *testing.T, ns string, current *atomic.Pointer[testServer], n int) *secretWriters {
	w := &secretWriters{ns: ns, current: current, stopc: make(chan struct{})}
	for g := range n {
		w.wg.Add(1)
		go w.run(g)
	}
	t.Cleanup(w.halt)
	return w
}

func (w *secretWriters) halt() {
	select {
	case <-w.stopc:
	default:
		close(w.stopc)
	}
	w.wg.Wait()
}

// run creates w<g>-<n> for n = 0, 1, ... and updates an earlier one
// after each, until stopped.
func (w *secretWriters) run(g int) {
	defer w.wg.Done()
	for n := 0; ; n++ {
		select {
		case <-w.stopc:
			return
		default:
		}
		name := fmt.Sprintf("w%d-%d", g, n)
		if !w.send(http.MethodPost, secretPath(w.ns), newSecret(name, "v0", "n"), http.StatusCreated, http.StatusConflict) {
			return
		}
		w.mu.Lock()
		w.created = append(w.created, name)
		w.mu.Unlock()
		old := fmt.Sprintf("w%d-%d", g, n/2)
		if !w.send(http.MethodPut, secretPath(w.ns, old), newSecret(old, fmt.Sprintf("v%d", n), "n"), http.StatusOK) {
			return
		}
	}
}

// send sends a request until it gets an answer, through the current
// server; any answer but codes is recorded as an error.
func (w *secretWriters) send(method, path string, body any, codes ...int) bool {
	data, _ := json.Marshal(body)
	for {
		select {
		case <-w.stopc:
			return false
		default:
		}
		r, err := w.current.Load().send(method, path, data, nil)
		if err != nil {
			continue // the server was closed: the next one takes it
		}
		if !slices.Contains(codes, r.Code) {
			w.mu.Lock()
			w.errs = append(w.errs, fmt.Sprintf("%s %s: %d %s", method, path, r.Code, truncate(r.Body)))
			w.mu.Unlock()
			return false
		}
		w.writes.Add(1)
		return true
	}
}

// waitWrites waits until the writers have written n more times.
func (w *secretWriters) waitWrites(t *testing.T, n int64) {
	t.Helper()
	from := w.writes.Load()
	waitFor(t, fmt.Sprintf("%d writes", n), func() bool { return w.writes.Load() >= from+n || w.failed() })
}

func (w *secretWriters) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.errs) > 0
}

// stop stops the writers and returns the secrets they created.
func (w *secretWriters) stop(t *testing.T) []string {
	t.Helper()
	w.halt()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.errs) > 0 {
		t.Fatalf("writers failed: %s", strings.Join(w.errs, "; "))
	}
	return w.created
}

// rewriteAll replaces every secret of ns through s with itself, as
// `kubectl get secrets -o json | kubectl replace -f -` does, and returns
// how many replacements wrote a new version. A conflict with a writer
// reads the secret again.
func rewriteAll(t *testing.T, s *testServer, ns string) int {
	t.Helper()
	written := 0
	for _, item := range listSecrets(t, s, secretPath(ns)).Items {
		cur := item
		for {
			cur.TypeMeta = metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"}
			r := s.do(t, http.MethodPut, secretPath(ns, cur.Name), &cur)
			if r.Code == http.StatusConflict {
				cur = *getSecret(t, s, ns, cur.Name)
				continue
			}
			var got corev1.Secret
			r.wantCode(t, http.StatusOK).decode(t, &got)
			if got.ResourceVersion != cur.ResourceVersion {
				written++
			}
			break
		}
	}
	return written
}

// TestEncryptionKeyRotation follows kube's key rotation procedure while
// writers keep writing secrets: key1 alone; key2 added second, restart;
// key2 moved first, restart; every secret replaced unchanged; key1
// removed, restart. Every secret is then readable and stored under key2.
func TestEncryptionKeyRotation(t *testing.T) {
	key1, key2 := newAESKey("key1", 1), newAESKey("key2", 2)
	c, first := newEncryptedNode(t, aesgcmSecrets(t, key1))
	ns := newNamespace(t, first)
	var initial []string
	for i := range 10 {
		initial = append(initial, fmt.Sprintf("s%d", i))
		first.do(t, http.MethodPost, secretPath(ns), newSecret(initial[i], "v", "n")).wantCode(t, http.StatusCreated)
	}
	var current atomic.Pointer[testServer]
	current.Store(first)
	writers := startWriters(t, ns, &current, 3)
	writers.waitWrites(t, 10)

	restart := func(cfg *encryption.Config) *testServer {
		old := current.Load()
		next := serveEncrypted(t, c, cfg, nil)
		current.Store(next)
		old.close() // returns once its last write is done
		return next
	}
	restart(aesgcmSecrets(t, key1, key2))
	writers.waitWrites(t, 10)
	rotated := restart(aesgcmSecrets(t, key2, key1))
	writers.waitWrites(t, 10)
	if n := rewriteAll(t, rotated, ns); n < len(initial) {
		t.Errorf("rewrite wrote %d secrets, want at least the %d written with key1 alone", n, len(initial))
	}
	created := writers.stop(t)
	if len(created) == 0 {
		t.Fatal("the writers created nothing")
	}
	last := restart(aesgcmSecrets(t, key2))

	want := append(initial, created...)
	var got []string
	for _, s := range listSecrets(t, last, secretPath(ns)).Items {
		got = append(got, s.Name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("secrets after the rotation: %v, want %v", got, want)
	}
	for _, name := range want {
		getSecret(t, last, ns, name)
	}
	for key, stored := range storedValues(t, last.Store) {
		if v := encryptedValue(t, key, stored); !bytes.HasPrefix(v, []byte("k8s:enc:aesgcm:v1:key2:")) {
			t.Errorf("%s holds %q, want a key2 value", key, v[:min(len(v), 24)])
		}
	}
}

// TestEncryptionWrongKey serves secrets written with key1 from a node
// configured with the wrong bytes for key1, or without key1: reads of
// them fail with 500 InternalError (GET, LIST, WATCH, DELETE), logged,
// while the node goes on serving everything else.
func TestEncryptionWrongKey(t *testing.T) {
	key1 := newAESKey("key1", 1)
	c, first := newEncryptedNode(t, aesgcmSecrets(t, key1))
	ns := newNamespace(t, first)
	before := listSecrets(t, first, secretPath(ns)).ResourceVersion
	first.do(t, http.MethodPost, secretPath(ns), newSecret("s", "v", "n")).wantCode(t, http.StatusCreated)
	createCM(t, first, ns, configMap("c", nil, map[string]string{"k": "v"}))
	first.close()

	for name, cfg := range map[string]*encryption.Config{
		"wrong key":   aesgcmSecrets(t, newAESKey("key1", 9)),
		"missing key": aesgcmSecrets(t, newAESKey("key2", 2)),
	} {
		t.Run(name, func(t *testing.T) {
			logs := &logBuffer{}
			s := serveEncrypted(t, c, cfg, logs)
			defer s.close()
			wantKey := fmt.Sprintf("unable to transform key %q", "/registry/core/secrets/"+ns+"/s")
			st := s.do(t, http.MethodGet, secretPath(ns, "s"), nil).wantStatus(t, http.StatusInternalServerError, metav1.StatusReasonInternalError)
			if !strings.HasPrefix(st.Message, "Internal error occurred: "+wantKey) {
				t.Errorf("GET message %q, want Internal error occurred: %s…", st.Message, wantKey)
			}
			for _, path := range []string{secretPath(ns), secretPath(ns) + "?labelSelector=app%3Dnone", "/api/v1/secrets", secretPath(ns) + "?watch=true"} {
				s.do(t, http.MethodGet, path, nil).wantStatus(t, http.StatusInternalServerError, metav1.StatusReasonInternalError)
			}
			w := watch(t, s, secretPath(ns)+"?watch=true&resourceVersion="+before)
			ev := w.next(t)
			var evst metav1.Status
			if ev.Type != "ERROR" || json.Unmarshal(ev.Object, &evst) != nil || evst.Code != http.StatusInternalServerError {
				t.Errorf("watch event %s %s, want an ERROR with a 500 Status", ev.Type, truncate(ev.Object))
			}
			s.do(t, http.MethodDelete, secretPath(ns, "s"), nil).wantStatus(t, http.StatusInternalServerError, metav1.StatusReasonInternalError)
			if !strings.Contains(logs.String(), "cannot read stored object") {
				t.Errorf("the failure was not logged; logs:\n%s", logs.String())
			}

			// The node serves the rest, and secrets it can decrypt.
			s.do(t, http.MethodGet, cmPath(ns, "c"), nil).wantCode(t, http.StatusOK)
			s.do(t, http.MethodGet, "/api/v1/namespaces", nil).wantCode(t, http.StatusOK)
			own := "own-" + strings.ReplaceAll(name, " ", "-")
			s.do(t, http.MethodPost, secretPath(ns), newSecret(own, "mine", "n")).wantCode(t, http.StatusCreated)
			if got := string(getSecret(t, s, ns, own).Data["password"]); got != "mine" {
				t.Errorf("own secret reads %q", got)
			}
		})
	}
}
