package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// meterSeeds is how many meters exist in v1 before storage moves to v2.
const meterSeeds = 300

// meterWriterCount is how many writers write during the migration.
const meterWriterCount = 3

// migrationScenario moves the storage version of the meters CRD from v1
// to v2 on a 3-node cluster under concurrent writes.
type migrationScenario struct {
	c         *procCluster
	k         *kubectl // through the leader of the start
	group, ns string
	crdName   string
	clients   []dynamic.Interface // one per node
	ledger    *meterLedger
}

// runMeterMigration creates meters in v1, moves storage to v2 with
// kubectl while writers write through every node in both versions, kills
// the leader with SIGKILL at once and starts it again, and waits for
// status.storedVersions to be [v2]: every meter the writers were told
// was written reads, in both versions, as they last wrote it.
func runMeterMigration(t *testing.T, kubectlBin string, c *procCluster, name string) {
	leader := c.waitLeader(-1)
	s := &migrationScenario{c: c, k: newKubectl(t, kubectlBin, c.nodes[leader].api, name), group: crdVersionsGroupOf(name), ns: name, ledger: newMeterLedger()}
	s.crdName = "meters." + s.group
	for _, nd := range c.nodes {
		s.clients = append(s.clients, crdMustDynamic(t, nd.api))
	}
	s.install(t)
	owned := s.seed(t)
	w := &meterWriters{group: s.group, ns: s.ns, clients: s.clients, ledger: s.ledger}
	startMeterWriters(w, owned)
	stopped := false
	defer func() {
		if !stopped {
			w.stop()
		}
	}()
	w.waitAcks(t, 50, "before storage moves")

	s.moveStorage(t)
	if v := s.storedVersions(t, c.nodes[leader].api); slices.Equal(v, []string{"v2"}) {
		t.Logf("the migration finished before the leader was killed: the kill did not interrupt it")
	} else {
		t.Logf("killing the leader %s with status.storedVersions %v", c.nodes[leader].name, v)
	}
	c.kill(leader)
	c.waitLeader(leader)
	w.waitAcks(t, 50, "with the old leader down")
	c.restart(leader)
	pollUntil(t, 60*time.Second, "the old leader to be ready again", func() error { return readyz(c.nodes[leader].api) })
	s.waitMigrated(t)
	w.waitAcks(t, 50, "after the migration")
	w.stop()
	stopped = true
	t.Logf("writers: %d acknowledged writes, %d with unknown outcome", s.ledger.acks.Load(), s.ledger.errs.Load())

	s.checkCondition(t)
	for i, nd := range c.nodes {
		for _, v := range []string{"v2", "v1"} {
			s.ledger.check(t, fmt.Sprintf("meters listed in %s through %s", v, nd.name), s.list(t, i, v))
		}
	}
}

// install applies the CRD and its policy and waits until every node
// serves both versions and converts by the policy.
func (s *migrationScenario) install(t *testing.T) {
	s.k.ok(t, "create", "namespace", s.ns)
	crd := s.k.manifest(t, "meters-crd", crdVersionsFixture(t, "meters.yaml", s.group))
	wantLines(t, s.k.ok(t, "apply", "-f", crd), regexp.QuoteMeta("customresourcedefinition.apiextensions.k8s.io/"+s.crdName)+" created")
	var addrs []string
	for _, nd := range s.c.nodes {
		addrs = append(addrs, nd.api)
	}
	crdVersionsWaitServed(t, s.group, "meters", s.ns, []string{"v1", "v2"}, addrs...)
	policy := s.k.manifest(t, "meters-policy", crdVersionsFixture(t, "meters-policy.yaml", s.group))
	wantLines(t, s.k.ok(t, "apply", "-f", policy), regexp.QuoteMeta("conversionpolicy.raftapi.io/"+s.crdName)+" created")
	if _, err := meterResource(s.clients[0], s.group, s.ns, "v1").Create(callCtx(t), meter(s.group, "probe", "probe", "v1", 7), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create probe: %v", err)
	}
	for i, dc := range s.clients {
		pollUntil(t, 10*time.Second, "the ConversionPolicy to convert on "+s.c.nodes[i].name, func() error {
			u, err := meterResource(dc, s.group, s.ns, "v2").Get(callCtx(t), "probe", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got := canonicalJSON(u.Object["spec"]); got != `{"owner":"probe","total":7}` {
				return fmt.Errorf("probe read in v2 has spec %s", got)
			}
			return nil
		})
	}
	if err := meterResource(s.clients[0], s.group, s.ns, "v1").Delete(callCtx(t), "probe", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete probe: %v", err)
	}
}

// seed creates meterSeeds meters in v1 through every node and returns
// them shared out among the writers.
func (s *migrationScenario) seed(t *testing.T) [][]string {
	owned := make([][]string, meterWriterCount)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := meterResource(s.clients[g%len(s.clients)], s.group, s.ns, "v1")
			for i := g; i < meterSeeds; i += 6 {
				name, owner := fmt.Sprintf("seed-%03d", i), fmt.Sprintf("w%d", i%meterWriterCount)
				if _, err := rc.Create(callCtx(t), meter(s.group, name, owner, "v1", 0), metav1.CreateOptions{}); err != nil {
					t.Errorf("create %s: %v", name, err)
					return
				}
				s.ledger.ack(name, owner, 0)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i := range meterSeeds {
		owned[i%meterWriterCount] = append(owned[i%meterWriterCount], fmt.Sprintf("seed-%03d", i))
	}
	return owned
}

// moveStorage applies the CRD with v2 as the storage version.
func (s *migrationScenario) moveStorage(t *testing.T) {
	var crd map[string]any
	if err := yaml.Unmarshal([]byte(crdVersionsFixture(t, "meters.yaml", s.group)), &crd); err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	for _, v := range versions {
		v := v.(map[string]any)
		v["storage"] = v["name"] == "v2"
	}
	if err := unstructured.SetNestedSlice(crd, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	b, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	out := s.k.ok(t, "apply", "-f", s.k.manifest(t, "meters-crd-v2", string(b)))
	wantLines(t, out, regexp.QuoteMeta("customresourcedefinition.apiextensions.k8s.io/"+s.crdName)+" configured")
}

// storedVersions returns the CRD's status.storedVersions as the node at
// addr has it (nil when it cannot be read).
func (s *migrationScenario) storedVersions(t *testing.T, addr string) []string {
	crd, err := crdVersionsCRD(t, addr, s.crdName)
	if err != nil {
		return nil
	}
	v, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
	return v
}

// waitMigrated waits until every node has status.storedVersions [v2].
func (s *migrationScenario) waitMigrated(t *testing.T) {
	for _, nd := range s.c.nodes {
		pollUntil(t, 60*time.Second, "status.storedVersions to be [v2] on "+nd.name, func() error {
			if v := s.storedVersions(t, nd.api); !slices.Equal(v, []string{"v2"}) {
				return fmt.Errorf("status.storedVersions = %v", v)
			}
			return nil
		})
	}
}

// migrationCondition is the CRD condition that shows the progress of
// the storage migration; True once every object is in the storage
// version and status.storedVersions is trimmed.
const migrationCondition = "StorageVersionMigrated"

// checkCondition checks that the CRD's migration condition is True.
func (s *migrationScenario) checkCondition(t *testing.T) {
	crd, err := crdVersionsCRD(t, s.c.nodes[0].api, s.crdName)
	if err != nil {
		t.Fatalf("get the CRD: %v", err)
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if c := c.(map[string]any); c["type"] == migrationCondition {
			if c["status"] != "True" {
				t.Errorf("condition %s after the migration = %v, want status True", migrationCondition, c)
			}
			return
		}
	}
	t.Errorf("the CRD has no condition %s: %v", migrationCondition, conds)
}

// list lists the meters through node i in version.
func (s *migrationScenario) list(t *testing.T, i int, version string) map[string]meterRead {
	list, err := meterResource(s.clients[i], s.group, s.ns, version).List(callCtx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list meters in %s through %s: %v", version, s.c.nodes[i].name, err)
	}
	out := map[string]meterRead{}
	for _, it := range list.Items {
		v, ok, _ := unstructured.NestedInt64(it.Object, "spec", meterField[version])
		owner, _, _ := unstructured.NestedString(it.Object, "spec", "owner")
		if !ok || it.GetAPIVersion() != s.group+"/"+version {
			t.Errorf("meter %s listed in %s: %s spec %s", it.GetName(), version, it.GetAPIVersion(), canonicalJSON(it.Object["spec"]))
		}
		out[it.GetName()] = meterRead{value: v, owner: owner}
	}
	return out
}
