package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Leader election of the widget controller's replicas: short, so a
// takeover after a replica dies without releasing takes seconds. The renew
// deadline outlasts a raft election (about 1–3 s after a leader dies), so
// the leading replica normally keeps its lease through the faults.
const (
	ctrlLeaseDuration = 6 * time.Second
	ctrlRenewDeadline = 4 * time.Second
	ctrlRetryPeriod   = 500 * time.Millisecond
	ctrlLeaseName     = "widget-controller"
	// ctrlReplicaLabel on the Lease names the replica incarnation holding
	// it (LeaderElectionLabels are written by the holder on every renewal).
	ctrlReplicaLabel = "ctrl.e2e.raftapi.io/replica"
	// ctrlOwnerLabel on a ConfigMap names the widget that owns it.
	ctrlOwnerLabel = "ctrl.e2e.raftapi.io/widget"
)

// failoverDialer stands in for the load balancer HA deployments put in
// front of kube-apiservers: every connection goes to the API address in
// use, and a connection refused there moves on to the next node. It is
// sticky, so "the node a client talks to" is one node at a time. Requests
// in flight on a connection to a node that dies fail, as behind a TCP load
// balancer; client-go and controller-runtime retry them.
type failoverDialer struct {
	addrs []string
	d     net.Dialer

	mu  sync.Mutex
	cur int
}

func newFailoverDialer(addrs []string, start int) *failoverDialer {
	return &failoverDialer{addrs: addrs, cur: start % len(addrs), d: net.Dialer{Timeout: 2 * time.Second}}
}

// current is the index of the node new connections go to.
func (f *failoverDialer) current() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur
}

// DialContext ignores the address asked for and dials the node in use,
// then the others in turn.
func (f *failoverDialer) DialContext(ctx context.Context, network, _ string) (net.Conn, error) {
	start := f.current()
	var errs []error
	for k := range f.addrs {
		i := (start + k) % len(f.addrs)
		conn, err := f.d.DialContext(ctx, network, f.addrs[i])
		if err == nil {
			f.mu.Lock()
			f.cur = i
			f.mu.Unlock()
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("every raftapi node refused: %w", errors.Join(errs...))
}

// ctrlBalancer is the host name of the balancer. The dialer never
// resolves it; the nodes' serving certificates carry it (--tls-san), as
// those of kube-apiservers behind a load balancer carry its name.
const ctrlBalancer = "raftapi-lb"

// restConfig is a client configuration reaching the cluster through f, as
// the admin of the first node's kubeconfig (the nodes of a cluster share
// its CA).
func (f *failoverDialer) restConfig() (*rest.Config, error) {
	cfg, err := restConfigAt(f.addrs[0])
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Dial, cfg.UserAgent = "https://"+ctrlBalancer, f.DialContext, "raftapi-e2e-controller"
	return cfg, nil
}

// ctrlLedger records what every replica incarnation of the controller did:
// reconciles in flight (two incarnations reconciling at once is a split
// brain), reconcile counts, elections and the ConfigMaps each created.
type ctrlLedger struct {
	mu         sync.Mutex
	active     map[string]int // incarnation -> reconciles in flight
	reconciles map[string]int
	elected    map[string]bool
	overlaps   []string
	creates    map[types.UID]int // widget uid -> ConfigMaps created for it
	conflicts  int
}

func newCtrlLedger() *ctrlLedger {
	return &ctrlLedger{active: map[string]int{}, reconciles: map[string]int{}, elected: map[string]bool{}, creates: map[types.UID]int{}}
}

// begin records a reconcile of who starting; the returned func ends it.
func (l *ctrlLedger) begin(who string) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for other, n := range l.active {
		if other != who && n > 0 {
			l.overlaps = append(l.overlaps, fmt.Sprintf("%s reconciled while %s had %d reconciles in flight", who, other, n))
		}
	}
	l.active[who]++
	l.reconciles[who]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.active[who]--
	}
}

func (l *ctrlLedger) created(uid types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.creates[uid]++
}

func (l *ctrlLedger) conflict() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conflicts++
}

func (l *ctrlLedger) setElected(who string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.elected[who] = true
}

// count is the number of reconciles by the incarnations of replica.
func (l *ctrlLedger) count(r *ctrlReplica) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for who, c := range l.reconciles {
		if r.owns(who) {
			n += c
		}
	}
	return n
}

// check fails the test on reconciles that overlapped across incarnations
// or ran in one never elected, and on a widget given two ConfigMaps.
func (l *ctrlLedger) check(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.overlaps {
		t.Errorf("two controller replicas reconciled at once: %s", o)
	}
	for who, n := range l.reconciles {
		if !l.elected[who] {
			t.Errorf("%s reconciled %d times without being elected", who, n)
		}
	}
	for uid, n := range l.creates {
		if n > 1 {
			t.Errorf("widget uid %s: its ConfigMap was created %d times (deleted behind the controller's back?)", uid, n)
		}
	}
	t.Logf("reconciles per replica incarnation: %v; %d ConfigMaps created, %d writes refused as stale (409)", l.reconciles, len(l.creates), l.conflicts)
}

// widgetReconciler is the controller the test runs: for each Widget an owned
// ConfigMap <widget>-cm holding spec.size, then status Ready=True with
// observedGeneration, written through the /status subresource.
type widgetReconciler struct {
	client crclient.Client
	mgr    manager.Manager
	who    string
	ledger *ctrlLedger
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	defer r.ledger.begin(r.who)()
	w := &ctrlWidget{}
	if err := r.client.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, crclient.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	err := r.syncConfigMap(ctx, w)
	if err == nil {
		err = r.syncStatus(ctx, w)
	}
	if apierrors.IsConflict(err) {
		// The cache is behind: the watch event of the newer version
		// enqueues this widget again, so there is nothing to retry. This
		// leans on the server's watches delivering every change.
		r.ledger.conflict()
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, err
}

func (r *widgetReconciler) syncConfigMap(ctx context.Context, w *ctrlWidget) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name + "-cm"}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.client, cm, func() error {
		cm.Labels = map[string]string{ctrlOwnerLabel: w.Name}
		cm.Data = map[string]string{"size": strconv.Itoa(int(w.Spec.Size))}
		return controllerutil.SetControllerReference(w, cm, r.mgr.GetScheme())
	})
	if op == controllerutil.OperationResultCreated {
		r.ledger.created(w.UID)
	}
	if err != nil {
		return fmt.Errorf("sync ConfigMap of %s: %w", w.Name, err)
	}
	return nil
}

func (r *widgetReconciler) syncStatus(ctx context.Context, w *ctrlWidget) error {
	ready := meta.FindStatusCondition(w.Status.Conditions, "Ready")
	if w.Status.ObservedGeneration == w.Generation && ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == w.Generation {
		return nil
	}
	meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, ObservedGeneration: w.Generation,
		Reason: "ConfigMapSynced", Message: "ConfigMap " + w.Name + "-cm holds size " + strconv.Itoa(int(w.Spec.Size)),
	})
	w.Status.ObservedGeneration = w.Generation
	if err := r.client.Status().Update(ctx, w); err != nil {
		return fmt.Errorf("write status of %s: %w", w.Name, err)
	}
	return nil
}

// ctrlReplica is one replica of the controller, as a Deployment would run
// it: a controller-runtime manager with leader election on a Lease. When
// its manager exits on its own (a lost lease) it is started again, as a
// kubelet restarts a crashed pod; each start is a new incarnation with its
// own lease identity.
type ctrlReplica struct {
	name   string
	ns     string
	dialer *failoverDialer
	ledger *ctrlLedger
	logf   func(format string, args ...any)
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	leading  string // incarnation holding the lease, "" when none
	restarts int
}

// startCtrlReplica starts replica name talking to the cluster through a
// failover dialer that starts at node start.
func startCtrlReplica(t *testing.T, name, ns string, addrs []string, start int, ledger *ctrlLedger, logf func(string, ...any)) *ctrlReplica {
	ctx, cancel := context.WithCancel(context.Background())
	r := &ctrlReplica{name: name, ns: ns, dialer: newFailoverDialer(addrs, start), ledger: ledger, logf: logf, cancel: cancel, done: make(chan struct{})}
	go r.run(ctx)
	t.Cleanup(func() { r.stop(t) })
	return r
}

func (r *ctrlReplica) run(ctx context.Context) {
	defer close(r.done)
	for inc := 1; ; inc++ {
		who := fmt.Sprintf("%s-%d", r.name, inc)
		err := r.runOnce(ctx, who)
		if ctx.Err() != nil {
			return
		}
		r.mu.Lock()
		r.restarts++
		r.mu.Unlock()
		r.logf("replica %s: manager exited (%v); restarting it as a crashed pod would be", who, err)
		// The kubelet's restart back-off, not synchronisation.
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// runOnce builds and runs one manager until it exits.
func (r *ctrlReplica) runOnce(ctx context.Context, who string) error {
	mgr, err := r.newManager(who)
	if err != nil {
		return err
	}
	rec := &widgetReconciler{client: mgr.GetClient(), mgr: mgr, who: who, ledger: r.ledger}
	err = builder.ControllerManagedBy(mgr).Named("widget").
		For(&ctrlWidget{}).Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{
			// Retries during an outage back off to at most 2 s rather than
			// the default 1000 s, so the test converges soon after a fault.
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, 2*time.Second),
		}).
		Complete(rec)
	if err != nil {
		return fmt.Errorf("build controller: %w", err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-mgr.Elected():
			r.ledger.setElected(who)
			r.setLeading(who)
			r.logf("replica %s: elected, talking to node %d", who, r.dialer.current())
		case <-stopped:
		}
	}()
	defer r.setLeading("")
	return mgr.Start(ctx)
}

func (r *ctrlReplica) newManager(who string) (manager.Manager, error) {
	lease, renew, retry := ctrlLeaseDuration, ctrlRenewDeadline, ctrlRetryPeriod
	cfg, err := r.dialer.restConfig()
	if err != nil {
		return nil, err
	}
	return manager.New(cfg, manager.Options{
		Scheme:                     ctrlScheme,
		Logger:                     funcr.New(func(prefix, args string) { r.logf("%s %s %s", who, prefix, args) }, funcr.Options{}),
		Cache:                      cache.Options{DefaultNamespaces: map[string]cache.Config{r.ns: {}}},
		Metrics:                    metricsserver.Options{BindAddress: "0"},
		LeaderElection:             true,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		LeaderElectionNamespace:    r.ns,
		LeaderElectionID:           ctrlLeaseName,
		LeaderElectionLabels:       map[string]string{ctrlReplicaLabel: who},
		LeaseDuration:              &lease,
		RenewDeadline:              &renew,
		RetryPeriod:                &retry,
		Controller: config.Controller{
			// Every incarnation registers a controller named "widget" in
			// this one process; the name check is for a single manager.
			SkipNameValidation:    ptr.To(true),
			ReconciliationTimeout: 10 * time.Second,
		},
	})
}

func (r *ctrlReplica) setLeading(who string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leading = who
}

// leadingAs is the incarnation of r holding the lease, "" when none.
func (r *ctrlReplica) leadingAs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leading
}

func (r *ctrlReplica) restartCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

// owns reports whether incarnation who is one of r's.
func (r *ctrlReplica) owns(who string) bool {
	return len(who) > len(r.name) && who[:len(r.name)+1] == r.name+"-"
}

func (r *ctrlReplica) stopped() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// stop cancels the replica's context, as killing its pod would, and waits
// for its manager to return. The lease is not released: the next replica
// takes over once it expires.
func (r *ctrlReplica) stop(t *testing.T) {
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(45 * time.Second):
		t.Errorf("controller replica %s did not stop", r.name)
	}
}

// ctrlWaitLeading waits until exactly one running replica leads and
// returns it with the incarnation that leads.
func ctrlWaitLeading(t *testing.T, timeout time.Duration, replicas ...*ctrlReplica) (*ctrlReplica, string) {
	t.Helper()
	var leader *ctrlReplica
	var who string
	pollUntil(t, timeout, "one controller replica to lead", func() error {
		var leading []string
		for _, r := range replicas {
			if w := r.leadingAs(); w != "" && !r.stopped() {
				leading = append(leading, w)
				leader, who = r, w
			}
		}
		if len(leading) != 1 {
			return fmt.Errorf("leading: %v", leading)
		}
		return nil
	})
	return leader, who
}

var ctrlLogOnce sync.Once

// ctrlTestLogger returns a printf that logs through t until the test has
// finished and drops what straggling goroutines log afterwards. It also
// gives controller-runtime's global logger a sink, which it otherwise
// complains about.
func ctrlTestLogger(t *testing.T) func(string, ...any) {
	ctrlLogOnce.Do(func() { crlog.SetLogger(logr.Discard()) })
	var mu sync.Mutex
	open := true
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		open = false
	})
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if open {
			t.Logf(format, args...)
		}
	}
}

// ctrlWidgetGV is the group and version of the Widget custom resource.
var ctrlWidgetGV = schema.GroupVersion{Group: "ctrl.e2e.raftapi.io", Version: "v1"}

// ctrlScheme holds the built-in types, CRDs and Widgets.
var ctrlScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	s.AddKnownTypeWithName(ctrlWidgetGV.WithKind("Widget"), &ctrlWidget{})
	s.AddKnownTypeWithName(ctrlWidgetGV.WithKind("WidgetList"), &ctrlWidgetList{})
	metav1.AddToGroupVersion(s, ctrlWidgetGV)
	return s
}()

// ctrlWidget is the Go type of the Widget custom resource, as an operator
// would write it (DeepCopy by hand instead of generated).
type ctrlWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ctrlWidgetSpec   `json:"spec"`
	Status            ctrlWidgetStatus `json:"status,omitempty"`
}

type ctrlWidgetSpec struct {
	Size int32 `json:"size"`
}

type ctrlWidgetStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type ctrlWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ctrlWidget `json:"items"`
}

func (w *ctrlWidget) DeepCopyObject() runtime.Object { return w.deepCopy() }

func (w *ctrlWidget) deepCopy() *ctrlWidget {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
		for i := range w.Status.Conditions {
			w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	return &out
}

func (l *ctrlWidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ctrlWidget, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].deepCopy()
		}
	}
	return &out
}
