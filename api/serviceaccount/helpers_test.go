package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

const testIssuer = "https://kubernetes.default.svc.cluster.local"

// fakeGetter is an in-memory Getter; local reads see only what has been
// "applied" to this node (local), fresh reads everything (objects).
type fakeGetter struct {
	mu      sync.Mutex
	objects map[string]any
	local   map[string]any
	fresh   int // fresh reads served
}

func newFakeGetter() *fakeGetter {
	return &fakeGetter{objects: map[string]any{}, local: map[string]any{}}
}

func (g *fakeGetter) put(kind, ns, name string, obj any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.objects[kind+"/"+ns+"/"+name] = obj
	g.local[kind+"/"+ns+"/"+name] = obj
}

func (g *fakeGetter) remove(kind, ns, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.objects, kind+"/"+ns+"/"+name)
	delete(g.local, kind+"/"+ns+"/"+name)
}

func (g *fakeGetter) lookup(kind, ns, name string, local bool) (any, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.objects
	if local {
		m = g.local
	} else {
		g.fresh++
	}
	o, ok := m[kind+"/"+ns+"/"+name]
	return o, ok
}

func (g *fakeGetter) ServiceAccount(_ context.Context, ns, name string, local bool) (*corev1.ServiceAccount, error) {
	o, ok := g.lookup("serviceaccounts", ns, name, local)
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
	}
	return o.(*corev1.ServiceAccount).DeepCopy(), nil
}

func (g *fakeGetter) Secret(_ context.Context, ns, name string, local bool) (*corev1.Secret, error) {
	o, ok := g.lookup("secrets", ns, name, local)
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
	}
	return o.(*corev1.Secret).DeepCopy(), nil
}

// addSA stores a service account ns/name with uid.
func (g *fakeGetter) addSA(ns, name, uid string) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}}
	g.put("serviceaccounts", ns, name, sa)
	return sa
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newECKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// fixture is a Tokens with a fake getter and clock.
type fixture struct {
	tokens *Tokens
	getter *fakeGetter
	clock  *clock
	auth   *Authenticator
}

func newFixture(t testing.TB, mutate ...func(*Config)) *fixture {
	t.Helper()
	c := &clock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	cfg := Config{Issuers: []string{testIssuer}, SigningKey: newECKey(t), Now: c.Now}
	for _, m := range mutate {
		m(&cfg)
	}
	tokens, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	g := newFakeGetter()
	return &fixture{tokens: tokens, getter: g, clock: c, auth: NewAuthenticator(tokens, g)}
}

// issue asks the token subresource for a token for ns/name.
func (f *fixture) issue(t testing.TB, ns, name string, spec authenticationv1.TokenRequestSpec) (*authenticationv1.TokenRequest, error) {
	t.Helper()
	out, err := TokenRequestFunc(f.tokens, f.getter)(context.Background(), ns, name, &authenticationv1.TokenRequest{Spec: spec})
	if err != nil {
		return nil, err
	}
	return out.(*authenticationv1.TokenRequest), nil
}

// mustIssue returns a token for ns/name with spec.
func (f *fixture) mustIssue(t testing.TB, ns, name string, spec authenticationv1.TokenRequestSpec) string {
	t.Helper()
	tr, err := f.issue(t, ns, name, spec)
	if err != nil {
		t.Fatalf("token for %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

func ptr[T any](v T) *T { return &v }
