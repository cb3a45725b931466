package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// gcTimeout bounds every wait for the garbage collector.
const gcTimeout = 60 * time.Second

// cascadeKubectl is kubectl in one namespace, with the steps of the
// cascading-deletion tests.
type cascadeKubectl struct {
	*kubectl
	ns string
}

// newCascadeKubectl creates namespace ns through the node at addr and
// returns kubectl working in it.
func newCascadeKubectl(t *testing.T, bin, addr, ns string) *cascadeKubectl {
	t.Helper()
	k := &cascadeKubectl{kubectl: newKubectl(t, bin, addr, ns), ns: ns}
	k.ok(t, "create", "namespace", ns)
	return k
}

// owner creates configmap name and returns its uid.
func (k *cascadeKubectl) owner(t *testing.T, name string) string {
	t.Helper()
	k.ok(t, "create", "configmap", name, "--from-literal=role=owner")
	uid := k.jsonpath(t, "configmap", name, ".metadata.uid")
	if uid == "" {
		t.Fatalf("configmap %s has no uid", name)
	}
	return uid
}

// dependent is one configmap to create with an owner reference.
type dependent struct {
	name, owner, ownerUID string
	block                 bool
	label                 string // value of label "dep", if any
	finalizer             string // a finalizer, if any
}

// manifest returns the YAML document of d.
func (d dependent) manifest() string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n", d.name)
	if d.label != "" {
		fmt.Fprintf(&b, "  labels:\n    dep: %s\n", d.label)
	}
	if d.finalizer != "" {
		fmt.Fprintf(&b, "  finalizers:\n  - %s\n", d.finalizer)
	}
	fmt.Fprintf(&b, "  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: %s\n    uid: %s\n    blockOwnerDeletion: %t\n", d.owner, d.ownerUID, d.block)
	b.WriteString("data:\n  role: dependent\n")
	return b.String()
}

// dependents creates ds with one `kubectl create -f`.
func (k *cascadeKubectl) dependents(t *testing.T, file string, ds ...dependent) {
	t.Helper()
	docs := make([]string, len(ds))
	for i, d := range ds {
		docs[i] = d.manifest()
	}
	k.seed(t, k.manifest(t, file, strings.Join(docs, "---\n")))
}

// exists reports whether configmap name exists, failing on anything but
// found or not found.
func (k *cascadeKubectl) exists(t *testing.T, name string) bool {
	t.Helper()
	res := k.run(t, "get", "configmap", name, "-o", "name")
	switch {
	case res.code == 0:
		return true
	case res.code == 1 && strings.Contains(res.stderr, "(NotFound)"):
		return false
	}
	t.Fatalf("unexpected answer: %v", res)
	return false
}

// waitGone waits until none of names exists.
func (k *cascadeKubectl) waitGone(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		pollUntil(t, gcTimeout, "configmap "+name+" to be gone", func() error {
			if k.exists(t, name) {
				return fmt.Errorf("configmap %s still exists", name)
			}
			return nil
		})
	}
}

// labelled returns the names of the configmaps with label dep=value.
func (k *cascadeKubectl) labelled(t *testing.T, value string) ([]string, error) {
	t.Helper()
	res := k.run(t, "get", "configmaps", "-l", "dep="+value, "-o", "name")
	if res.code != 0 {
		return nil, fmt.Errorf("%v", res)
	}
	return strings.Fields(res.stdout), nil
}

// countLabelled counts the configmaps of ns with label dep=value through
// the node at addr, with a raw HTTPS list from the node's own state
// (resourceVersion=0): quicker than kubectl, to catch the collector half
// way, and answered even while the cluster has no leader.
func countLabelled(t *testing.T, addr, ns, value string) int {
	t.Helper()
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	u := "https://" + addr + "/api/v1/namespaces/" + ns + "/configmaps?resourceVersion=0&labelSelector=dep%3D" + value
	if _, err := do(callCtx(t), http.MethodGet, u, nil, &list); err != nil {
		t.Fatalf("list: %v", err)
	}
	return len(list.Items)
}

// TestCascadeKubectl deletes owners with dependents through a follower
// with `kubectl delete --cascade=background|foreground|orphan`, with every
// kubectl build: the raft leader's garbage collector does the cascading.
func TestCascadeKubectl(t *testing.T) {
	c := startCluster(t, 3)
	follower := (c.waitLeader(-1) + 1) % 3
	for _, b := range kubectlBuilds() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			k := newCascadeKubectl(t, b.path, c.nodes[follower].api, "cascade-"+b.name)
			t.Run("background", k.background)
			t.Run("foreground", k.foreground)
			t.Run("orphan", k.orphan)
		})
	}
}

// background: the owner goes at once, its dependents after it.
func (k *cascadeKubectl) background(t *testing.T) {
	uid := k.owner(t, "bg")
	k.dependents(t, "bg-deps",
		dependent{name: "bg-a", owner: "bg", ownerUID: uid},
		dependent{name: "bg-b", owner: "bg", ownerUID: uid, block: true})
	wantLines(t, k.ok(t, "delete", "configmap", "bg", "--cascade=background"), `configmap "bg" deleted.*`)
	k.waitGone(t, "bg-a", "bg-b")
}

// foreground: kubectl waits for the owner, which goes only after its
// blocking dependents, down a chain of three owners.
func (k *cascadeKubectl) foreground(t *testing.T) {
	uid := k.owner(t, "fg")
	k.dependents(t, "fg-mid", dependent{name: "fg-mid", owner: "fg", ownerUID: uid, block: true},
		dependent{name: "fg-free", owner: "fg", ownerUID: uid})
	mid := k.jsonpath(t, "configmap", "fg-mid", ".metadata.uid")
	k.dependents(t, "fg-leaf", dependent{name: "fg-leaf", owner: "fg-mid", ownerUID: mid, block: true})
	wantLines(t, k.ok(t, "delete", "configmap", "fg", "--cascade=foreground"), `configmap "fg" deleted.*`)
	for _, name := range []string{"fg-mid", "fg-leaf"} {
		if k.exists(t, name) {
			t.Errorf("blocking dependent %s exists after its owner went in foreground", name)
		}
	}
	k.waitGone(t, "fg-free")
}

// orphan: the owner goes, its dependents stay without the reference.
func (k *cascadeKubectl) orphan(t *testing.T) {
	uid := k.owner(t, "or")
	k.dependents(t, "or-deps",
		dependent{name: "or-a", owner: "or", ownerUID: uid, block: true},
		dependent{name: "or-b", owner: "or", ownerUID: uid})
	wantLines(t, k.ok(t, "delete", "configmap", "or", "--cascade=orphan"), `configmap "or" deleted.*`)
	for _, name := range []string{"or-a", "or-b"} {
		if refs := k.jsonpath(t, "configmap", name, ".metadata.ownerReferences"); refs != "" {
			t.Errorf("orphaned %s still has owner references %s", name, refs)
		}
	}
}

// TestCascadeLeaderKill kills the raft leader process while the garbage
// collector has work in hand, a foreground owner waiting for a held
// dependent and a background owner's many dependents, and checks that
// the next leader finishes it.
func TestCascadeLeaderKill(t *testing.T) {
	b := kubectlBuilds()[0]
	if b.skip != "" {
		t.Skip(b.skip)
	}
	c := startCluster(t, 3)
	leader := c.waitLeader(-1)
	k := newCascadeKubectl(t, b.path, c.nodes[(leader+1)%3].api, "cascade-kill")

	fgUID := k.owner(t, "fg")
	k.dependents(t, "held", dependent{name: "held", owner: "fg", ownerUID: fgUID, block: true, finalizer: "e2e.raftapi.io/hold"})
	bgUID := k.owner(t, "bg")
	const n = 150
	deps := make([]dependent, n)
	for i := range deps {
		deps[i] = dependent{name: fmt.Sprintf("bg-%02d", i), owner: "bg", ownerUID: bgUID, label: "bg"}
	}
	k.dependents(t, "bg-deps", deps...)

	k.ok(t, "delete", "configmap", "fg", "--cascade=foreground", "--wait=false")
	pollUntil(t, gcTimeout, "the held dependent to be deleted", func() error {
		if ts := k.jsonpath(t, "configmap", "held", ".metadata.deletionTimestamp"); ts == "" {
			return fmt.Errorf("held has no deletionTimestamp")
		}
		return nil
	})
	k.ok(t, "delete", "configmap", "bg", "--cascade=background")
	addr := c.nodes[(leader+1)%3].api
	pollUntil(t, gcTimeout, "the collector to start on the background owner's dependents", func() error {
		if left := countLabelled(t, addr, k.ns, "bg"); left == n {
			return fmt.Errorf("all %d dependents left", n)
		}
		return nil
	})
	c.kill(leader)
	t.Logf("killed leader %s with %d of %d dependents left a moment before", c.nodes[leader].name, countLabelled(t, addr, k.ns, "bg"), n)

	next := c.waitLeader(leader)
	t.Logf("%s leads", c.nodes[next].name)
	pollUntil(t, gcTimeout, "the background owner's dependents to be gone", func() error {
		left, err := k.labelled(t, "bg")
		if err == nil && len(left) > 0 {
			err = fmt.Errorf("%d dependents left", len(left))
		}
		return err
	})
	if !k.exists(t, "fg") {
		t.Fatalf("the foreground owner went while its blocking dependent is held")
	}
	k.ok(t, "patch", "configmap", "held", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	k.waitGone(t, "held", "fg")
}
