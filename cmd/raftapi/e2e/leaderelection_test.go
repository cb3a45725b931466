package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Lease timings of the candidates: short, so a takeover after a candidate
// stops without releasing takes seconds.
const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// TestLeaderElection runs client-go leader election with a Lease lock,
// three candidates each talking to a different node of a 3-node cluster:
// A (on the raft leader) starts alone and leads; B and C (on the
// followers) join. A stops without releasing the lease: B or C takes
// over once the lease has expired. That one stops releasing the lease:
// the last takes over at once. Callbacks and the Lease object
// (holderIdentity, leaseTransitions) are checked at each step.
func TestLeaderElection(t *testing.T) {
	c := startCluster(t, 3)
	l := c.waitLeader(-1)
	const ns, lease = "default", "e2e-election"
	reader := mustClientset(t, restConfigFor(t, c.nodes[(l+1)%3].api))

	a := startCandidate(t, c.nodes[l].api, "a-"+c.nodes[l].name, ns, lease, false)
	cands := []*candidate{a}
	if got := waitLeading(t, cands, 20*time.Second); got != a {
		t.Fatalf("%s leads, want %s", got.id, a.id)
	}
	checkLease(t, reader, ns, lease, a.id, 0)
	for i, n := range []int{(l + 1) % 3, (l + 2) % 3} {
		cands = append(cands, startCandidate(t, c.nodes[n].api, fmt.Sprintf("%c-%s", 'b'+i, c.nodes[n].name), ns, lease, true))
	}
	for _, cd := range cands[1:] {
		cd.waitObserved(t, a.id)
	}

	stopped := time.Now()
	a.stop(t)
	second := waitLeading(t, cands, 3*leaseDuration)
	// The others saw A's last renewal up to two jittered retry periods
	// before it stopped; half the lease is a safe lower bound.
	if took := time.Since(stopped); took < leaseDuration/2 {
		t.Errorf("%s took over %v after %s stopped without releasing, before the %v lease expired", second.id, took, a.id, leaseDuration)
	}
	checkLease(t, reader, ns, lease, second.id, 1)

	stopped = time.Now()
	second.stop(t)
	// client-go releases with the lease as it last saw it; when the stop
	// cancelled a renewal the server had already applied, the release is
	// refused as stale (409) and the lease must run out instead.
	released := leaseHolder(t, reader, ns, lease) != second.id
	third := waitLeading(t, cands, 3*leaseDuration)
	if took := time.Since(stopped); released && took > leaseDuration-retryPeriod {
		t.Errorf("%s took over %v after %s released the lease; want before the %v lease expired", third.id, took, second.id, leaseDuration)
	}
	checkLease(t, reader, ns, lease, third.id, 2)

	third.stop(t)
	// The same race as above: a release refused as stale leaves the lease
	// naming its last holder until it expires; any other holder is wrong.
	switch h := leaseHolder(t, reader, ns, lease); h {
	case "":
	case third.id:
		t.Logf("%s's release was refused as stale after a cancelled renewal; the lease runs out instead", third.id)
	default:
		t.Errorf("after %s released the lease, holderIdentity = %q, want empty", third.id, h)
	}
}

// candidate is one leader-election participant.
type candidate struct {
	id     string
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	leading  bool
	observed []string // leaders OnNewLeader reported
}

// startCandidate starts a candidate talking to the node at addr; release
// makes it release the lease when stopped.
func startCandidate(t *testing.T, addr, id, ns, lease string, release bool) *candidate {
	t.Helper()
	cs := mustClientset(t, restConfigFor(t, addr))
	ctx, cancel := context.WithCancel(context.Background())
	cd := &candidate{id: id, cancel: cancel, done: make(chan struct{})}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: lease},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	go func() {
		defer close(cd.done)
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock: lock, Name: lease,
			LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			ReleaseOnCancel: release,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) { cd.set(true) },
				OnStoppedLeading: func() { cd.set(false) },
				OnNewLeader:      cd.observe,
			},
		})
	}()
	t.Cleanup(func() { cd.cancel(); <-cd.done })
	return cd
}

func (cd *candidate) set(leading bool) {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	cd.leading = leading
}

func (cd *candidate) observe(id string) {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	cd.observed = append(cd.observed, id)
}

func (cd *candidate) isLeading() bool {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	return cd.leading
}

func (cd *candidate) running() bool {
	select {
	case <-cd.done:
		return false
	default:
		return true
	}
}

// stop cancels the candidate's context and waits until RunOrDie has
// returned, which comes after OnStoppedLeading.
func (cd *candidate) stop(t *testing.T) {
	t.Helper()
	cd.cancel()
	select {
	case <-cd.done:
	case <-time.After(renewDeadline + 5*time.Second):
		t.Fatalf("candidate %s did not stop", cd.id)
	}
	if cd.isLeading() {
		t.Errorf("candidate %s stopped without OnStoppedLeading", cd.id)
	}
}

// waitObserved waits until OnNewLeader has reported id.
func (cd *candidate) waitObserved(t *testing.T, id string) {
	t.Helper()
	pollUntil(t, 10*time.Second, cd.id+" to observe leader "+id, func() error {
		cd.mu.Lock()
		defer cd.mu.Unlock()
		for _, o := range cd.observed {
			if o == id {
				return nil
			}
		}
		return fmt.Errorf("observed %v", cd.observed)
	})
}

func runningCandidates(cands []*candidate) []*candidate {
	var out []*candidate
	for _, cd := range cands {
		if cd.running() {
			out = append(out, cd)
		}
	}
	return out
}

// waitLeading waits until exactly one running candidate leads and
// returns it; two leading at once fails the test.
func waitLeading(t *testing.T, cands []*candidate, timeout time.Duration) *candidate {
	t.Helper()
	var leader *candidate
	pollUntil(t, timeout, "a candidate to lead", func() error {
		var leading []string
		leader = nil
		for _, cd := range runningCandidates(cands) {
			if cd.isLeading() {
				leading = append(leading, cd.id)
				leader = cd
			}
		}
		switch len(leading) {
		case 0:
			return fmt.Errorf("no candidate leads")
		case 1:
			return nil
		}
		t.Fatalf("candidates %v lead at once", leading)
		return nil
	})
	return leader
}

// checkLease checks the Lease object: held by holder, with transitions
// leader changes behind it.
func checkLease(t *testing.T, cs kubernetes.Interface, ns, name, holder string, transitions int32) {
	t.Helper()
	var l *coordinationv1.Lease
	pollUntil(t, 5*time.Second, "lease "+name+" held by "+holder, func() error {
		var err error
		if l, err = cs.CoordinationV1().Leases(ns).Get(callCtx(t), name, metav1.GetOptions{}); err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != holder {
			return fmt.Errorf("spec = %+v", l.Spec)
		}
		return nil
	})
	s := l.Spec
	if s.LeaseTransitions == nil || *s.LeaseTransitions != transitions {
		t.Errorf("lease leaseTransitions = %v, want %d", s.LeaseTransitions, transitions)
	}
	if s.LeaseDurationSeconds == nil || *s.LeaseDurationSeconds != int32(leaseDuration/time.Second) {
		t.Errorf("lease leaseDurationSeconds = %v, want %d", s.LeaseDurationSeconds, leaseDuration/time.Second)
	}
	if s.AcquireTime == nil || s.RenewTime == nil || s.RenewTime.Before(s.AcquireTime) {
		t.Errorf("lease acquireTime %v renewTime %v", s.AcquireTime, s.RenewTime)
	}
}

// leaseHolder returns the lease's holderIdentity ("" when none).
func leaseHolder(t *testing.T, c kubernetes.Interface, ns, name string) string {
	t.Helper()
	l, err := c.CoordinationV1().Leases(ns).Get(callCtx(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
