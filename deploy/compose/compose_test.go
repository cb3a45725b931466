package compose

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testBudget bounds the whole test, cleanup excluded.
const testBudget = 8 * time.Minute

// namespace holds the test's ConfigMaps.
const namespace = "compose-faults"

// TestComposeClusterSurvivesFaults brings up compose.yaml's three nodes,
// writes through all of them while injecting each fault in turn, and
// checks that every acknowledged write is readable from every node.
func TestComposeClusterSurvivesFaults(t *testing.T) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), testBudget)
	defer cancel()
	p := newProject(ctx, t)
	up := time.Now()
	p.must(ctx, slowCall, "up", "-d")
	kubeconfig := p.copyKubeconfig(ctx, services[0], t.TempDir())
	h := &harness{t: t, p: p, kubeconfig: kubeconfig, nodes: newNodes(t, p, kubeconfig)}
	h.waitFormed(ctx, up)
	h.createNamespace(ctx)

	h.w = startWriter(ctx, namespace, h.nodes)
	t.Cleanup(func() { h.w.finish() })
	if err := h.w.waitFor(ctx, faultWrites, faultMinLength, writesTimeout); err != nil {
		t.Fatalf("writes before any fault: %v", err)
	}
	var outcomes []outcome
	for _, f := range faults {
		outcomes = append(outcomes, h.inject(ctx, f))
	}
	attempts, failures := h.w.attempts.Load(), h.w.failures.Load()
	acked := h.w.finish()
	lost := h.verify(ctx, acked)
	t.Logf("writes: %d attempted, %d acknowledged, %d failed (unavailable or unknown outcome), %d lost",
		attempts, len(acked), failures, lost)
	logOutcomes(t, outcomes)
	t.Logf("test time %v", time.Since(began).Round(time.Second))
}

// waitFormed waits until every node serves, kubectl works against each
// and every node is a healthy voter; up is when compose up began.
func (h *harness) waitFormed(ctx context.Context, up time.Time) {
	h.t.Helper()
	h.await(ctx, 2*time.Minute, "the new cluster to serve on every node", allServing(h.nodes))
	took := time.Since(up)
	for _, n := range h.nodes {
		out, err := run(ctx, quickCall, nil, "kubectl", "--kubeconfig", h.kubeconfig, "--server", n.url, "get", "namespaces")
		if err != nil || !strings.Contains(out, "kube-system") {
			h.t.Fatalf("kubectl get namespaces on %s: %v\n%s", n.name, err, out)
		}
	}
	h.await(ctx, membersTimeout, "three healthy voters", h.fullMembership)
	h.t.Logf("cluster formed: every node serving %v after compose up began", took.Round(time.Millisecond))
}

// createNamespace creates the test's namespace.
func (h *harness) createNamespace(ctx context.Context) {
	h.t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := h.nodes[0].client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// verify checks that every acknowledged write is readable from every
// node and returns how many are missing on the node missing the most.
func (h *harness) verify(ctx context.Context, acked []string) int {
	h.t.Helper()
	worst := 0
	for _, n := range h.nodes {
		stored := n.listNames(ctx, h.t)
		var missing []string
		for _, name := range acked {
			if !stored[name] {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			h.t.Errorf("%s lacks %d of %d acknowledged writes, e.g. %v", n.name, len(missing), len(acked), missing[:min(len(missing), 10)])
		}
		h.t.Logf("%s: %d ConfigMaps, every acknowledged one among them: %t", n.name, len(stored), len(missing) == 0)
		worst = max(worst, len(missing))
	}
	return worst
}

// listNames lists the namespace's ConfigMaps from n, page by page (the
// first page a Most Recent read), and returns their names.
func (n *node) listNames(ctx context.Context, t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := listPage(ctx, n, opts)
		if err != nil {
			t.Fatalf("%s: list ConfigMaps: %v", n.name, err)
		}
		for _, cm := range list.Items {
			names[cm.Name] = true
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			return names
		}
	}
}

// listPage lists one page, retrying while the node is briefly unable to.
func listPage(ctx context.Context, n *node, opts metav1.ListOptions) (list *corev1.ConfigMapList, err error) {
	_, err = eventually(ctx, 30*time.Second, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		list, err = n.client.CoreV1().ConfigMaps(namespace).List(ctx, opts)
		return err
	})
	return list, err
}

// logOutcomes logs one line per fault.
func logOutcomes(t *testing.T, outcomes []outcome) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %-4s %9s %9s %9s %9s %7s\n", "fault", "node", "failover", "repair", "serving", "voters", "writes")
	for _, o := range outcomes {
		fmt.Fprintf(&b, "%-30s %-4s %9v %9v %9v %9v %7d\n", o.fault, o.node, o.failover.Round(time.Millisecond),
			o.repair.Round(time.Millisecond), o.serving.Round(time.Millisecond), o.members.Round(time.Millisecond), o.written)
	}
	t.Logf("per fault: failover (the others serving without the node), repair (the repairing command), "+
		"serving (every node serving again) and voters (every node a healthy voter again), both from the start of the repair; "+
		"writes acknowledged meanwhile:\n%s", b.String())
}
