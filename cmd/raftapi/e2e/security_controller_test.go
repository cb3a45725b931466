package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The least-privilege controller's namespace and ServiceAccount.
const (
	azCtrlNamespace = "ctrl-rbac"
	azCtrlAccount   = "widget-controller"
)

// azCtrlRules are the least privileges of the widget controller (see
// widgetReconciler): watch widgets and write their status; watch, create
// and update ConfigMaps. withStatus false leaves out the status.
func azCtrlRules(withStatus bool) []rbacv1.PolicyRule {
	group := ctrlWidgetGV.Group
	rules := []rbacv1.PolicyRule{
		azRule(group, []string{"widgets"}, []string{"get", "list", "watch"}),
		azRule("", []string{"configmaps"}, []string{"get", "list", "watch", "create", "update"}),
	}
	if withStatus {
		rules = append(rules, azRule(group, []string{"widgets/status"}, []string{"update"}))
	}
	return rules
}

// TestSecurityControllerLeastPrivilege runs the widget controller of
// TestControllerRuntimeThroughFaults (controller-runtime, informers, an
// owned ConfigMap and a /status write per Widget) as a ServiceAccount
// bound to a Role of exactly the permissions it needs, with a token from
// the TokenRequest API: it reconciles every widget. The account may do
// nothing else. When update on widgets/status is removed from the Role,
// the next reconcile fails with kube's 403, which reaches the reconciler's
// error and controller-runtime's "Reconciler error" log; given back, the
// controller recovers by itself.
func TestSecurityControllerLeastPrivilege(t *testing.T) {
	logf := ctrlTestLogger(t)
	c := azStartCluster(t, 1, "--tls-san", ctrlBalancer)
	s := azServerOf(t, c.nodes[0])
	admin := ctrlClient(t, newFailoverDialer([]string{c.nodes[0].api}, 0))
	cs := s.adminClientset(t)
	mustNamespace(t, cs, azCtrlNamespace)
	ctrlCreateCRD(t, c, admin, azCtrlNamespace)

	token := azCtrlIdentity(t, cs)
	cfg := s.as(token)
	const user = "system:serviceaccount:" + azCtrlNamespace + ":" + azCtrlAccount
	_, err := secClientset(t, cfg).CoreV1().Secrets(azCtrlNamespace).List(callCtx(t), metav1.ListOptions{})
	azForbidden(t, "the controller's account lists secrets", err,
		`secrets is forbidden: User "`+user+`" cannot list resource "secrets" in API group "" in the namespace "ctrl-rbac"`)

	ctl := azStartController(t, cfg, logf)
	azCreateWidget(t, admin, "w-1")
	azCreateWidget(t, admin, "w-2")
	azWaitReconciled(t, admin, 2)

	azSetRules(t, cs, azCtrlNamespace, azCtrlAccount, azCtrlRules(false)...)
	azWaitStatusDenied(t, secClientset(t, cfg))
	azCreateWidget(t, admin, "w-revoked")
	want := `write status of w-revoked: widgets.ctrl.e2e.raftapi.io "w-revoked" is forbidden: User "` + user +
		`" cannot update resource "widgets/status" in API group "ctrl.e2e.raftapi.io" in the namespace "ctrl-rbac"`
	secEventually(t, 20*time.Second, "the 403 reaching the controller", func() error { return ctl.saw(want) })
	w := &ctrlWidget{}
	if err := admin.Get(callCtx(t), crclient.ObjectKey{Namespace: azCtrlNamespace, Name: "w-revoked"}, w); err != nil {
		t.Fatal(err)
	}
	if w.Status.ObservedGeneration != 0 || len(w.Status.Conditions) != 0 {
		t.Errorf("w-revoked has a status although the controller may not write it: %+v", w.Status)
	}
	if err := admin.Get(callCtx(t), crclient.ObjectKey{Namespace: azCtrlNamespace, Name: "w-revoked-cm"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("the controller may still write ConfigMaps, yet w-revoked-cm: %v", err)
	}

	azSetRules(t, cs, azCtrlNamespace, azCtrlAccount, azCtrlRules(true)...)
	azWaitReconciled(t, admin, 3)
}

// azCtrlIdentity creates the controller's ServiceAccount, binds it to a
// Role of azCtrlRules and returns a token for it from the TokenRequest
// API.
func azCtrlIdentity(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: azCtrlAccount}}
	if _, err := cs.CoreV1().ServiceAccounts(azCtrlNamespace).Create(callCtx(t), sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	azGrant(t, cs, azCtrlNamespace, azCtrlAccount, azSubjectSA(azCtrlNamespace, azCtrlAccount), azCtrlRules(true)...)
	tr, err := cs.CoreV1().ServiceAccounts(azCtrlNamespace).CreateToken(callCtx(t), azCtrlAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s: %v", azCtrlAccount, err)
	}
	return tr.Status.Token
}

// azCreateWidget creates a widget of size 1 as the admin.
func azCreateWidget(t *testing.T, admin crclient.Client, name string) {
	t.Helper()
	mustCtrlCreate(t, admin, &ctrlWidget{ObjectMeta: metav1.ObjectMeta{Namespace: azCtrlNamespace, Name: name}, Spec: ctrlWidgetSpec{Size: 1}})
}

// azWaitReconciled waits until n widgets exist and each is Ready at its
// generation with its ConfigMap.
func azWaitReconciled(t *testing.T, admin crclient.Client, n int) {
	t.Helper()
	secEventually(t, 30*time.Second, fmt.Sprintf("%d widgets reconciled", n), func() error {
		return ctrlCall(func(ctx context.Context) error {
			widgets, err := ctrlCheckState(ctx, admin, azCtrlNamespace)
			if err == nil && len(widgets) != n {
				err = fmt.Errorf("%d widgets", len(widgets))
			}
			return err
		})
	})
}

// azWaitStatusDenied waits until the account is refused updating
// widgets/status (a SelfSubjectAccessReview of its own), so that the
// next reconcile runs under the reduced Role.
func azWaitStatusDenied(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	attrs := &authorizationv1.ResourceAttributes{Namespace: azCtrlNamespace, Verb: "update", Group: ctrlWidgetGV.Group, Resource: "widgets", Subresource: "status"}
	secEventually(t, azPropagation, "update widgets/status refused", func() error {
		r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(callCtx(t),
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if r.Status.Allowed {
			return errors.New("still allowed")
		}
		return nil
	})
}

// azController is the widget controller run by the test: the errors its
// reconciles returned and what controller-runtime logged as errors.
type azController struct {
	mu     sync.Mutex
	errs   []error
	logged []string
}

// azStartController runs the widget controller with cfg, caching only
// the test's namespace and without leader election (one replica).
func azStartController(t *testing.T, cfg *rest.Config, logf func(string, ...any)) *azController {
	t.Helper()
	ctl := &azController{}
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:  ctrlScheme,
		Logger:  logr.New(&azLogSink{ctl: ctl}),
		Cache:   cache.Options{DefaultNamespaces: map[string]cache.Config{azCtrlNamespace: {}}},
		Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{
			SkipNameValidation:    ptr.To(true),
			ReconciliationTimeout: 10 * time.Second,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	inner := &widgetReconciler{client: mgr.GetClient(), mgr: mgr, who: azCtrlAccount, ledger: newCtrlLedger()}
	err = builder.ControllerManagedBy(mgr).Named("widget-least-privilege").
		For(&ctrlWidget{}).Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, time.Second),
		}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			res, err := inner.Reconcile(ctx, req)
			if err != nil {
				ctl.record(err)
			}
			return res, err
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				logf("controller manager: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the controller manager did not stop")
		}
	})
	return ctl
}

func (c *azController) record(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, err)
}

func (c *azController) log(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logged = append(c.logged, line)
}

// saw returns nil once a reconcile has returned the 403 error whose text
// is want and controller-runtime has logged it as a Reconciler error.
func (c *azController) saw(want string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	returned := slices.ContainsFunc(c.errs, func(err error) bool { return apierrors.IsForbidden(err) && err.Error() == want })
	logged := slices.Contains(c.logged, "Reconciler error: "+want)
	if returned && logged {
		return nil
	}
	return fmt.Errorf("reconcile returned it: %v, logged: %v; errors returned: %v; logged: %q", returned, logged, c.errs, c.logged)
}

// azLogSink records the errors logged through it and drops the rest.
type azLogSink struct{ ctl *azController }

// Init implements logr.LogSink.
func (s *azLogSink) Init(logr.RuntimeInfo) {}

// Enabled implements logr.LogSink: info messages are not wanted.
func (s *azLogSink) Enabled(int) bool { return false }

// Info implements logr.LogSink.
func (s *azLogSink) Info(int, string, ...any) {}

// Error implements logr.LogSink: it records "msg: err".
func (s *azLogSink) Error(err error, msg string, _ ...any) {
	s.ctl.log(fmt.Sprintf("%s: %v", msg, err))
}

// WithValues implements logr.LogSink.
func (s *azLogSink) WithValues(...any) logr.LogSink { return s }

// WithName implements logr.LogSink.
func (s *azLogSink) WithName(string) logr.LogSink { return s }
