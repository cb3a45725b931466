package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// TestControllerRuntimeThroughFaults runs a controller built with
// sigs.k8s.io/controller-runtime against a 3-node cluster of the real
// binary: two replicas of it (managers with leader election on a Lease) in
// this process, each reaching the cluster through a failover dialer (the
// load balancer an HA control plane has in front of its API servers). The
// controller gives every Widget (a custom resource) an owned ConfigMap
// holding spec.size and writes status Ready=True with observedGeneration
// through /status.
//
// While widgets are created and resized, the node the leading replica
// talks to is killed -9 and restarted, then the raft leader is, then the
// leading replica itself stops without releasing its lease. After each
// fault the controller must have observed every write acknowledged since.
// At the end every widget must be Ready at its generation (which must
// equal its size: status writes do not move it) with exactly one owned
// ConfigMap holding its latest size, created once; no ConfigMap may be
// left without its widget, no two replicas may ever have reconciled at
// once, the standby must have taken over, and deleting widgets must
// garbage-collect their ConfigMaps.
func TestControllerRuntimeThroughFaults(t *testing.T) {
	s := startCtrlScenario(t)
	s.traffic.progress(t, s.admin, "before any fault", 8, 4)
	s.killManagersNode()
	s.killRaftLeader()
	s.takeover()
	s.traffic.stop()
	widgets := ctrlWaitConverged(t, s.admin, s.ns, s.traffic)
	ctrlCheckGarbageCollected(t, s.admin, s.ns, widgets[:4])
	s.ledger.check(t)
	t.Logf("replica restarts after a lost lease: a %d, b %d", s.a.restartCount(), s.b.restartCount())
}

// ctrlScenario is the cluster, the two controller replicas, the traffic
// and the client the checks read through.
type ctrlScenario struct {
	t       *testing.T
	logf    func(string, ...any)
	c       *procCluster
	ns      string
	admin   crclient.Client
	ledger  *ctrlLedger
	a, b    *ctrlReplica
	traffic *ctrlTraffic
}

// startCtrlScenario starts a 3-node cluster whose serving certificates
// name the balancer, creates the namespace and the Widget CRD, starts
// replicas a and b (first dialing nodes 0 and 1) and waits until one
// leads, then starts the traffic (dialing node 2).
func startCtrlScenario(t *testing.T) *ctrlScenario {
	s := &ctrlScenario{t: t, logf: ctrlTestLogger(t), c: startCluster(t, 3, "--tls-san", ctrlBalancer), ns: "ctrl-e2e", ledger: newCtrlLedger()}
	t.Cleanup(func() { ctrlReportExited(t, s.c) })
	addrs := make([]string, len(s.c.nodes))
	for i, nd := range s.c.nodes {
		addrs[i] = nd.api
	}
	s.admin = ctrlClient(t, newFailoverDialer(addrs, 0))
	mustCtrlCreate(t, s.admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}})
	ctrlCreateCRD(t, s.c, s.admin, s.ns)
	s.a = startCtrlReplica(t, "a", s.ns, addrs, 0, s.ledger, s.logf)
	s.b = startCtrlReplica(t, "b", s.ns, addrs, 1, s.ledger, s.logf)
	ctrlWaitLeading(t, 30*time.Second, s.a, s.b)
	s.traffic = startCtrlTraffic(t, newFailoverDialer(addrs, 2), s.ns)
	return s
}

// killManagersNode kills -9 the node the leading replica talks to and,
// once the controller has kept up with the traffic without it, restarts
// it. The failover is the point: the same manager must keep its lease
// and do the work through another node, with no standby stepping in.
func (s *ctrlScenario) killManagersNode() {
	t := s.t
	t.Helper()
	first, who := ctrlWaitLeading(t, 30*time.Second, s.a, s.b)
	victim := first.dialer.current()
	s.logf("killing node %d, the one the leading replica %s talks to (raft leader: node %d)", victim, who, s.c.waitLeader(-1))
	before := s.ledger.count(first)
	s.c.kill(victim)
	s.traffic.progress(t, s.admin, fmt.Sprintf("with node %d killed", victim), 4, 4)
	if now := first.leadingAs(); now != who || s.ledger.count(first) == before || first.dialer.current() == victim {
		t.Errorf("after node %d died, replica %s leads as %q (was %s), reconciled %d times since, dials node %d",
			victim, first.name, now, who, s.ledger.count(first)-before, first.dialer.current())
	}
	ctrlRestart(t, s.c, victim)
}

// killRaftLeader kills -9 the raft leader and, once the controller has
// kept up with the traffic without it, restarts it.
func (s *ctrlScenario) killRaftLeader() {
	t := s.t
	t.Helper()
	leader := s.c.waitLeader(-1)
	s.logf("killing node %d, the raft leader", leader)
	s.c.kill(leader)
	s.traffic.progress(t, s.admin, fmt.Sprintf("with raft leader %d killed", leader), 4, 4)
	ctrlRestart(t, s.c, leader)
}

// takeover stops the leading replica without releasing its lease, as a
// killed pod would, and checks that the standby, which must not have
// reconciled while it stood by, takes the lease over once it has expired
// and does the work.
func (s *ctrlScenario) takeover() {
	t := s.t
	t.Helper()
	leader, _ := ctrlWaitLeading(t, 30*time.Second, s.a, s.b)
	standby := s.a
	if leader == s.a {
		standby = s.b
	}
	if standby.restartCount() == 0 && s.ledger.count(standby) != 0 {
		t.Errorf("standby replica %s reconciled %d times while %s held the lease", standby.name, s.ledger.count(standby), leader.name)
	}
	before := s.ledger.count(standby)
	stopped := time.Now()
	leader.stop(t)
	next, who := ctrlWaitLeading(t, 3*ctrlLeaseDuration, s.a, s.b)
	if next != standby {
		t.Fatalf("replica %s leads after %s stopped, want %s", next.name, leader.name, standby.name)
	}
	// The standby saw the last renewal at most a retry period or two
	// before the stop; half the lease is a safe lower bound.
	if took := time.Since(stopped); took < ctrlLeaseDuration/2 {
		t.Errorf("%s took the lease %v after %s stopped, before its %v lease ran out", who, took, leader.name, ctrlLeaseDuration)
	}
	s.traffic.progress(t, s.admin, "after replica "+leader.name+" stopped", 4, 4)
	if s.ledger.count(standby) == before {
		t.Errorf("standby %s took the lease but did not reconcile", who)
	}
	lease := &coordinationv1.Lease{}
	if err := s.admin.Get(callCtx(t), crclient.ObjectKey{Namespace: s.ns, Name: ctrlLeaseName}, lease); err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if got := lease.Labels[ctrlReplicaLabel]; got != who {
		t.Errorf("lease %s carries replica %q, want the new leader %s (holder %q)", ctrlLeaseName, got, who, ptr.Deref(lease.Spec.HolderIdentity, ""))
	}
}

// ctrlReportExited says, when the test failed, which node processes had
// exited by then and how: a node the test did not kill that died is a
// crash (exit status, panic in its log) or was killed from outside.
func ctrlReportExited(t *testing.T, c *procCluster) {
	if !t.Failed() {
		return
	}
	for _, nd := range c.nodes {
		if nd.cmd != nil && !nd.running() {
			t.Logf("node %s had exited: %v", nd.name, nd.cmd.ProcessState)
		}
	}
}

// ctrlRestart restarts killed node i and waits until it is ready.
func ctrlRestart(t *testing.T, c *procCluster, i int) {
	t.Helper()
	c.restart(i)
	pollUntil(t, 30*time.Second, c.nodes[i].name+" /readyz after restart", func() error { return readyz(c.nodes[i].api) })
	c.waitLeader(-1)
}

// ctrlWidgetCRD is the CustomResourceDefinition of Widgets, as a user
// would kubectl apply it.
const ctrlWidgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.ctrl.e2e.raftapi.io
spec:
  group: ctrl.e2e.raftapi.io
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, format: int32, minimum: 0}
          status:
            type: object
            properties:
              observedGeneration: {type: integer, format: int64}
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status, lastTransitionTime, reason, message]
                  properties:
                    type: {type: string}
                    status: {type: string, enum: ["True", "False", "Unknown"]}
                    observedGeneration: {type: integer, format: int64}
                    lastTransitionTime: {type: string, format: date-time}
                    reason: {type: string}
                    message: {type: string}
`

// ctrlCreateCRD creates the Widget CRD and waits until it is Established
// and every node serves widgets.
func ctrlCreateCRD(t *testing.T, c *procCluster, admin crclient.Client, ns string) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(ctrlWidgetCRD), crd); err != nil {
		t.Fatal(err)
	}
	mustCtrlCreate(t, admin, crd)
	pollUntil(t, 20*time.Second, "CRD "+crd.Name+" Established", func() error {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := ctrlCall(func(ctx context.Context) error { return admin.Get(ctx, crclient.ObjectKeyFromObject(crd), got) }); err != nil {
			return err
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", got.Status.Conditions)
	})
	for i := range c.nodes {
		direct := ctrlClient(t, newFailoverDialer([]string{c.nodes[i].api}, 0))
		pollUntil(t, 20*time.Second, c.nodes[i].name+" serving widgets", func() error {
			return ctrlCall(func(ctx context.Context) error {
				return direct.List(ctx, &ctrlWidgetList{}, crclient.InNamespace(ns))
			})
		})
	}
}

// ctrlWaitConverged waits until the controller has caught up with every
// widget, checks each size against what the traffic saw acknowledged and
// returns the widgets.
func ctrlWaitConverged(t *testing.T, admin crclient.Client, ns string, traffic *ctrlTraffic) []ctrlWidget {
	t.Helper()
	var widgets []ctrlWidget
	pollUntil(t, 45*time.Second, "every widget reconciled at its generation", func() error {
		return ctrlCall(func(ctx context.Context) error {
			var err error
			widgets, err = ctrlCheckState(ctx, admin, ns)
			return err
		})
	})
	if want := traffic.createdCount(); len(widgets) != want {
		t.Errorf("%d widgets exist, the traffic created %d", len(widgets), want)
	}
	for _, w := range widgets {
		if lo, hi := traffic.sizeBounds(w.Name); w.Spec.Size < lo || w.Spec.Size > hi {
			t.Errorf("widget %s has size %d; acknowledged %d, highest tried %d", w.Name, w.Spec.Size, lo, hi)
		}
		// Created at size 1, generation 1; every resize is one spec
		// change. Status writes and new owned objects move neither.
		if w.Generation != int64(w.Spec.Size) {
			t.Errorf("widget %s: generation %d after reaching size %d from 1 one step at a time", w.Name, w.Generation, w.Spec.Size)
		}
	}
	t.Logf("converged: %d widgets, %d size updates acknowledged", len(widgets), traffic.updateCount())
	return widgets
}

// ctrlCheckState reads every widget and ConfigMap of ns (Most Recent) and
// returns an error unless each widget is Ready at its generation with
// exactly one ConfigMap, controlled by it, holding its size, and no
// ConfigMap of the controller's is without its widget.
func ctrlCheckState(ctx context.Context, cl crclient.Client, ns string) ([]ctrlWidget, error) {
	var wl ctrlWidgetList
	if err := cl.List(ctx, &wl, crclient.InNamespace(ns)); err != nil {
		return nil, err
	}
	var cms corev1.ConfigMapList
	if err := cl.List(ctx, &cms, crclient.InNamespace(ns)); err != nil {
		return nil, err
	}
	byOwner := map[string][]corev1.ConfigMap{}
	for _, cm := range cms.Items {
		if ctrlOwned(&cm) {
			byOwner[cm.Labels[ctrlOwnerLabel]] = append(byOwner[cm.Labels[ctrlOwnerLabel]], cm)
		}
	}
	for _, w := range wl.Items {
		if err := ctrlCheckWidget(&w, byOwner[w.Name]); err != nil {
			return nil, err
		}
		delete(byOwner, w.Name)
	}
	for owner, orphans := range byOwner {
		return nil, fmt.Errorf("%d ConfigMaps of missing widget %q: %s", len(orphans), owner, orphans[0].Name)
	}
	return wl.Items, nil
}

// ctrlOwned reports whether cm is the controller's: labelled with a widget
// or owned by one.
func ctrlOwned(cm *corev1.ConfigMap) bool {
	if _, ok := cm.Labels[ctrlOwnerLabel]; ok {
		return true
	}
	return slices.ContainsFunc(cm.OwnerReferences, func(r metav1.OwnerReference) bool { return r.Kind == "Widget" })
}

func ctrlCheckWidget(w *ctrlWidget, cms []corev1.ConfigMap) error {
	ready := meta.FindStatusCondition(w.Status.Conditions, "Ready")
	if ready == nil || ready.Status != metav1.ConditionTrue || w.Status.ObservedGeneration != w.Generation || ready.ObservedGeneration != w.Generation {
		return fmt.Errorf("widget %s generation %d: status %+v", w.Name, w.Generation, w.Status)
	}
	if len(cms) != 1 {
		return fmt.Errorf("widget %s has %d ConfigMaps", w.Name, len(cms))
	}
	cm := cms[0]
	refs := cm.OwnerReferences
	if cm.Name != w.Name+"-cm" || len(refs) != 1 || refs[0].UID != w.UID || refs[0].Kind != "Widget" || refs[0].Controller == nil || !*refs[0].Controller {
		return fmt.Errorf("widget %s (uid %s): ConfigMap %s has ownerReferences %+v", w.Name, w.UID, cm.Name, refs)
	}
	if got := cm.Data["size"]; got != strconv.Itoa(int(w.Spec.Size)) {
		return fmt.Errorf("widget %s size %d: ConfigMap %s holds %q", w.Name, w.Spec.Size, cm.Name, got)
	}
	return nil
}

// ctrlCheckGarbageCollected deletes widgets and waits until the garbage
// collector has removed their ConfigMaps, leaving the others' alone.
func ctrlCheckGarbageCollected(t *testing.T, admin crclient.Client, ns string, victims []ctrlWidget) {
	t.Helper()
	for i := range victims {
		if err := admin.Delete(callCtx(t), &victims[i], crclient.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			t.Fatalf("delete widget %s: %v", victims[i].Name, err)
		}
	}
	pollUntil(t, 30*time.Second, "ConfigMaps of deleted widgets garbage-collected", func() error {
		for _, w := range victims {
			err := ctrlCall(func(ctx context.Context) error {
				return admin.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: w.Name + "-cm"}, &corev1.ConfigMap{})
			})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("ConfigMap %s-cm: %v", w.Name, err)
			}
		}
		return ctrlCall(func(ctx context.Context) error {
			_, err := ctrlCheckState(ctx, admin, ns)
			return err
		})
	})
}

// ctrlTraffic creates widgets when allowed and keeps bumping the size of
// existing ones, through its own failover dialer, recording what was
// acknowledged.
type ctrlTraffic struct {
	cl   crclient.Client
	ns   string
	halt chan struct{}
	done chan struct{}

	mu      sync.Mutex
	budget  int      // creates allowed and not yet made
	created []string // widget names, in creation order
	lo, hi  map[string]int32
	acks    []ctrlAck
	updates int
}

// ctrlAck is a write the traffic saw acknowledged: widget name at generation.
type ctrlAck struct {
	name string
	gen  int64
}

func startCtrlTraffic(t *testing.T, d *failoverDialer, ns string) *ctrlTraffic {
	tr := &ctrlTraffic{cl: ctrlClient(t, d), ns: ns, halt: make(chan struct{}), done: make(chan struct{}),
		lo: map[string]int32{}, hi: map[string]int32{}}
	go tr.run()
	t.Cleanup(tr.stop)
	return tr
}

func (tr *ctrlTraffic) run() {
	defer close(tr.done)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-tr.halt:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if tr.wantCreate() {
			tr.create(ctx)
		} else if names := tr.names(); len(names) > 0 {
			tr.bump(ctx, names[(i*7)%len(names)])
		}
		cancel()
	}
}

func (tr *ctrlTraffic) stop() {
	select {
	case <-tr.halt:
	default:
		close(tr.halt)
	}
	<-tr.done
}

func (tr *ctrlTraffic) wantCreate() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.budget > 0
}

// create makes the next widget; a create whose outcome is unknown is
// retried, and AlreadyExists then means the first attempt took.
func (tr *ctrlTraffic) create(ctx context.Context) {
	tr.mu.Lock()
	name := fmt.Sprintf("widget-%02d", len(tr.created))
	tr.mu.Unlock()
	w := &ctrlWidget{ObjectMeta: metav1.ObjectMeta{Namespace: tr.ns, Name: name}, Spec: ctrlWidgetSpec{Size: 1}}
	err := tr.cl.Create(ctx, w)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.budget--
	tr.created = append(tr.created, name)
	tr.lo[name], tr.hi[name] = 1, 1
	if err == nil {
		tr.acks = append(tr.acks, ctrlAck{name, w.Generation})
	}
}

// bump increments a widget's spec.size from a fresh read.
func (tr *ctrlTraffic) bump(ctx context.Context, name string) {
	w := &ctrlWidget{}
	if err := tr.cl.Get(ctx, crclient.ObjectKey{Namespace: tr.ns, Name: name}, w); err != nil {
		return
	}
	w.Spec.Size++
	tr.mu.Lock()
	tr.hi[name] = max(tr.hi[name], w.Spec.Size)
	tr.mu.Unlock()
	if err := tr.cl.Update(ctx, w); err != nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.lo[name] = max(tr.lo[name], w.Spec.Size)
	tr.acks = append(tr.acks, ctrlAck{name, w.Generation})
	tr.updates++
}

func (tr *ctrlTraffic) names() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.created)
}

func (tr *ctrlTraffic) createdCount() int { return len(tr.names()) }

func (tr *ctrlTraffic) updateCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.updates
}

// sizeBounds is the lowest size a widget may have (the last acknowledged)
// and the highest (the last tried).
func (tr *ctrlTraffic) sizeBounds(name string) (int32, int32) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.lo[name], tr.hi[name]
}

// progress allows creates more widgets, waits until they and at least
// updates more size changes are acknowledged, then until the controller
// has observed every write acknowledged since (Ready=True, observedGeneration
// at least the acknowledged generation).
func (tr *ctrlTraffic) progress(t *testing.T, admin crclient.Client, phase string, creates, updates int) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("progress %s: %v", phase, time.Since(start).Round(time.Millisecond)) }()
	tr.mu.Lock()
	mark, want := len(tr.acks), len(tr.created)+creates
	tr.budget += creates
	tr.mu.Unlock()
	var acks []ctrlAck
	pollUntil(t, 40*time.Second, fmt.Sprintf("%d creates and %d updates acknowledged %s", creates, updates, phase), func() error {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		acks = slices.Clone(tr.acks[mark:])
		if len(tr.created) < want || len(acks) < creates+updates {
			return fmt.Errorf("%d widgets, %d acknowledged writes since", len(tr.created), len(acks))
		}
		return nil
	})
	pollUntil(t, 40*time.Second, "the controller to observe the writes acknowledged "+phase, func() error {
		for _, a := range acks {
			w := &ctrlWidget{}
			if err := ctrlCall(func(ctx context.Context) error {
				return admin.Get(ctx, crclient.ObjectKey{Namespace: tr.ns, Name: a.name}, w)
			}); err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(w.Status.Conditions, "Ready") || w.Status.ObservedGeneration < a.gen {
				return fmt.Errorf("widget %s: generation %d acknowledged, status %+v", a.name, a.gen, w.Status)
			}
		}
		return nil
	})
}

// ctrlClient is a direct (uncached) controller-runtime client over d.
func ctrlClient(t *testing.T, d *failoverDialer) crclient.Client {
	t.Helper()
	cfg, err := d.restConfig()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := crclient.New(cfg, crclient.Options{Scheme: ctrlScheme})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// ctrlCall runs one API call with its own deadline.
func ctrlCall(f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f(ctx)
}

func mustCtrlCreate(t *testing.T, cl crclient.Client, obj crclient.Object) {
	t.Helper()
	if err := cl.Create(callCtx(t), obj); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}
