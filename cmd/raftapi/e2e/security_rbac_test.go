package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The users of the token file the RBAC tests start their nodes with.
var (
	azAlice = azUser{token: "az-alice-0123456789", name: "alice", uid: "uid-alice", groups: []string{"dev"}}
	azErin  = azUser{token: "az-erin-0123456789", name: "erin", uid: "uid-erin"}
	azFrank = azUser{token: "az-frank-0123456789", name: "frank", uid: "uid-frank"}
)

// azTeam is the namespace the RBAC scenario grants in.
const azTeam = "team"

// rbacScenario is one node with RBAC (the default --authorization-mode)
// and the token-file users alice, erin and frank, driven with kubectl
// v1.32 and client-go.
type rbacScenario struct {
	s                          *azServer
	admin                      kubernetes.Interface
	adminK, alice, erin, frank *kubectl
}

// TestSecurityRBAC shows kube-apiserver's RBAC semantics on one node, as
// kubectl and client-go users see them: kubectl auth can-i (yes/no, exit
// codes, --list), kubectl auth whoami, impersonation authorized with the
// impersonate verb, escalation prevention for roles (escalate) and
// bindings (bind), ClusterRole aggregation into view, edit and admin,
// the access review APIs and what an anonymous request may do.
func TestSecurityRBAC(t *testing.T) {
	tokens := azTokenFile(t, t.TempDir(), azAlice, azErin, azFrank)
	c := azStartCluster(t, 1, "--token-auth-file", tokens)
	s := azServerOf(t, c.nodes[0])
	sc := &rbacScenario{s: s, admin: s.adminClientset(t)}
	mustNamespace(t, sc.admin, azTeam)
	sc.adminK = s.kubectl(t, "", azTeam)
	sc.alice = s.kubectl(t, azAlice.token, azTeam)
	sc.erin = s.kubectl(t, azErin.token, azTeam)
	sc.frank = s.kubectl(t, azFrank.token, azTeam)

	t.Run("can-i", sc.canI)
	t.Run("can-i-list", sc.canIList)
	t.Run("whoami", sc.whoami)
	t.Run("impersonation", sc.impersonation)
	t.Run("escalate", sc.escalate)
	t.Run("bind", sc.bind)
	t.Run("aggregation", sc.aggregation)
	t.Run("access-reviews", sc.accessReviews)
	t.Run("anonymous", sc.anonymous)
}

// canI: kubectl auth can-i prints yes or no and exits 0 or 1; a grant
// (view in team) turns no into yes for what view allows, only there.
func (sc *rbacScenario) canI(t *testing.T) {
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "list", "configmaps")
	azFails(t, sc.alice, `Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team"`,
		"get", "configmaps")

	sc.adminK.ok(t, "create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice")
	azUntilOK(t, sc.alice, "auth", "can-i", "list", "configmaps")

	azWantExit(t, sc.alice, 0, "yes\n", "auth", "can-i", "list", "configmaps")
	azWantExit(t, sc.alice, 0, "yes\n", "auth", "can-i", "get", "configmaps/any-name")
	azWantExit(t, sc.alice, 0, "yes\n", "auth", "can-i", "watch", "serviceaccounts")
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "create", "configmaps")
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "get", "secrets")
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "list", "configmaps", "-n", "default")
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "list", "namespaces", "--all-namespaces")
	azWantExit(t, sc.alice, 1, "", "auth", "can-i", "delete", "configmaps", "--quiet")
	azWantExit(t, sc.alice, 0, "", "auth", "can-i", "get", "configmaps", "--quiet")
	azWantExit(t, sc.alice, 0, "yes\n", "auth", "can-i", "get", "/version")
	azWantExit(t, sc.alice, 0, "yes\n", "auth", "can-i", "get", "/apis")
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "get", "/raftapi/v1/status")

	sc.adminK.ok(t, "create", "configmap", "shared", "--from-literal=k=v")
	if out := sc.alice.ok(t, "get", "configmap", "shared", "-o", "jsonpath={.data.k}"); out != "v" {
		t.Errorf("alice reads configmap shared: %q", out)
	}
	azFails(t, sc.alice, `configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"`,
		"create", "configmap", "by-alice", "--from-literal=k=v")
	azFails(t, sc.alice, `Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"`,
		"get", "configmaps", "-n", "default")
}

// canIList: kubectl auth can-i --list prints the rules a
// SelfSubjectRulesReview returns: view's in team, the basic user's
// review APIs and the discovery paths; none of view's in default.
func (sc *rbacScenario) canIList(t *testing.T) {
	out := sc.alice.ok(t, "auth", "can-i", "--list")
	wantLines(t, out,
		`Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs`,
		`configmaps\s+\[\]\s+\[\]\s+\[get list watch\]`,
		`serviceaccounts\s+\[\]\s+\[\]\s+\[get list watch\]`,
		`selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]`,
		`selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]`,
		`selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]`,
		`\s+\[/api/\*\]\s+\[\]\s+\[get\]`,
		`\s+\[/version\]\s+\[\]\s+\[get\]`,
		`\s+\[/readyz\]\s+\[\]\s+\[get\]`,
	)
	if hasLine(out, `secrets\s.*`) {
		t.Errorf("alice (view) may do something to secrets:\n%s", out)
	}
	def := sc.alice.ok(t, "auth", "can-i", "--list", "-n", "default")
	wantLines(t, def, `selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]`)
	if hasLine(def, `configmaps\s.*`) {
		t.Errorf("alice's view binding in team shows in default:\n%s", def)
	}
}

// whoami: kubectl auth whoami's table names the token-file user.
func (sc *rbacScenario) whoami(t *testing.T) {
	out := sc.alice.ok(t, "auth", "whoami")
	wantLines(t, out, `ATTRIBUTE\s+VALUE`, `Username\s+alice`, `UID\s+uid-alice`, `Groups\s+\[dev system:authenticated\]`)
}

// impersonation: the admin may act as alice (and is then held to alice's
// permissions); alice may not impersonate until granted impersonate on
// users, and then only the user named, and no group.
func (sc *rbacScenario) impersonation(t *testing.T) {
	sc.adminK.ok(t, "--as", "alice", "get", "configmaps")
	azFails(t, sc.adminK, `configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team"`,
		"--as", "alice", "create", "configmap", "as-alice", "--from-literal=k=v")
	azFails(t, sc.alice, `Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`,
		"--as", "bob", "get", "configmaps")

	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "impersonate-bob"},
		Rules: []rbacv1.PolicyRule{azRule("", []string{"users"}, []string{"impersonate"}, "bob")}}
	if _, err := sc.admin.RbacV1().ClusterRoles().Create(callCtx(t), cr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	azBindClusterRole(t, sc.admin, "", "alice-impersonates-bob", cr.Name, azUserSubject("alice"))

	out := azUntilOK(t, sc.alice, "--as", "bob", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
	if want := `bob ["system:authenticated"]`; out != want {
		t.Errorf("alice --as bob: whoami says %q, want %q", out, want)
	}
	azFails(t, sc.alice, `Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team"`,
		"--as", "bob", "get", "configmaps")
	azFails(t, sc.alice, `users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`,
		"--as", "carol", "get", "configmaps")
	azFails(t, sc.alice, `groups "ops" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope`,
		"--as", "bob", "--as-group", "ops", "get", "configmaps")
}

// escalate: a user who may create roles may create one granting only
// what she holds; one granting more (get secrets) is refused with kube's
// message until she is given escalate.
func (sc *rbacScenario) escalate(t *testing.T) {
	azGrant(t, sc.admin, azTeam, "role-maker", azUserSubject("erin"), azRule(rbacv1.GroupName, []string{"roles"}, []string{"create"}))
	out := azUntilOK(t, sc.erin, "create", "role", "another-role-maker", "--verb=create", "--resource=roles.rbac.authorization.k8s.io")
	if out != "role.rbac.authorization.k8s.io/another-role-maker created\n" {
		t.Errorf("erin creates a role within her permissions: %q", out)
	}
	azFails(t, sc.erin, `roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "erin" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n"+
		`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
		"create", "role", "secret-reader", "--verb=get", "--resource=secrets")

	azSetRules(t, sc.admin, azTeam, "role-maker", azRule(rbacv1.GroupName, []string{"roles"}, []string{"create", "escalate"}))
	out = azUntilOK(t, sc.erin, "create", "role", "secret-reader", "--verb=get", "--resource=secrets")
	if out != "role.rbac.authorization.k8s.io/secret-reader created\n" {
		t.Errorf("erin with escalate creates secret-reader: %q", out)
	}
	azFails(t, sc.erin, `secrets "x" is forbidden: User "erin" cannot get resource "secrets" in API group "" in the namespace "team"`,
		"get", "secret", "x")
}

// bind: a user who may create rolebindings may bind a ClusterRole whose
// permissions he holds (view), not one he does not (edit) until given
// bind on that ClusterRole, and then only on that one.
func (sc *rbacScenario) bind(t *testing.T) {
	frank := azUserSubject("frank")
	azGrant(t, sc.admin, azTeam, "binder", frank, azRule(rbacv1.GroupName, []string{"rolebindings"}, []string{"create"}))
	azBindClusterRole(t, sc.admin, azTeam, "frank-view", "view", frank)

	out := azUntilOK(t, sc.frank, "create", "rolebinding", "gina-view", "--clusterrole=view", "--user=gina")
	if out != "rolebinding.rbac.authorization.k8s.io/gina-view created\n" {
		t.Errorf("frank binds view: %q", out)
	}
	azFails(t, sc.frank, `rolebindings.rbac.authorization.k8s.io "gina-edit" is forbidden: user "frank" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`,
		"create", "rolebinding", "gina-edit", "--clusterrole=edit", "--user=gina")

	azSetRules(t, sc.admin, azTeam, "binder",
		azRule(rbacv1.GroupName, []string{"rolebindings"}, []string{"create"}),
		azRule(rbacv1.GroupName, []string{"clusterroles"}, []string{"bind"}, "edit"))
	out = azUntilOK(t, sc.frank, "create", "rolebinding", "gina-edit", "--clusterrole=edit", "--user=gina")
	if out != "rolebinding.rbac.authorization.k8s.io/gina-edit created\n" {
		t.Errorf("frank with bind on edit binds edit: %q", out)
	}
	azFails(t, sc.frank, `rolebindings.rbac.authorization.k8s.io "gina-admin" is forbidden: user "frank" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`,
		"create", "rolebinding", "gina-admin", "--clusterrole=admin", "--user=gina")
}

// aggregation: a ClusterRole labelled aggregate-to-view extends view, and
// through view's own label edit and admin: alice (view in team) may then
// list leases, which view does not grant by itself. Deleting the
// labelled role takes the rule away again.
func (sc *rbacScenario) aggregation(t *testing.T) {
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "list", "leases.coordination.k8s.io")
	cr := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "lease-viewer", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{azRule("coordination.k8s.io", []string{"leases"}, []string{"get", "list", "watch"})},
	}
	if _, err := sc.admin.RbacV1().ClusterRoles().Create(callCtx(t), cr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"view", "edit", "admin"} {
		secEventually(t, azPropagation, "the lease rule aggregated into "+role, func() error {
			return sc.hasLeaseRule(t, role, true)
		})
	}
	azWantExit(t, sc.alice, 0, "yes\n", "auth", "can-i", "list", "leases.coordination.k8s.io")

	if err := sc.admin.RbacV1().ClusterRoles().Delete(callCtx(t), cr.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	secEventually(t, azPropagation, "the lease rule gone from view", func() error {
		return sc.hasLeaseRule(t, "view", false)
	})
	azWantExit(t, sc.alice, 1, "no\n", "auth", "can-i", "list", "leases.coordination.k8s.io")
}

// hasLeaseRule returns nil when ClusterRole role holds a rule letting
// list leases exactly when want says.
func (sc *rbacScenario) hasLeaseRule(t *testing.T, role string, want bool) error {
	cr, err := sc.admin.RbacV1().ClusterRoles().Get(callCtx(t), role, metav1.GetOptions{})
	if err != nil {
		return err
	}
	has := slices.ContainsFunc(cr.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, "coordination.k8s.io") && slices.Contains(r.Resources, "leases") && slices.Contains(r.Verbs, "list")
	})
	if has != want {
		return fmt.Errorf("ClusterRole %s lets list leases: %v (aggregationRule %v, %d rules)", role, has, cr.AggregationRule, len(cr.Rules))
	}
	return nil
}

// accessReviews: SubjectAccessReview and LocalSubjectAccessReview answer
// for another user with RBAC's reason; SelfSubjectAccessReview and
// SelfSubjectRulesReview for the caller; creating a SubjectAccessReview
// takes a permission alice lacks.
func (sc *rbacScenario) accessReviews(t *testing.T) {
	authz := sc.admin.AuthorizationV1()
	list := &authorizationv1.ResourceAttributes{Namespace: azTeam, Verb: "list", Resource: "configmaps"}
	sar, err := authz.SubjectAccessReviews().Create(callCtx(t), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", Groups: []string{"dev"}, ResourceAttributes: list},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `RBAC: allowed by RoleBinding "alice-view/team" of ClusterRole "view" to User "alice"`; !sar.Status.Allowed || sar.Status.Reason != want {
		t.Errorf("SubjectAccessReview alice list configmaps in team: %+v, want allowed with reason %q", sar.Status, want)
	}
	create := &authorizationv1.ResourceAttributes{Namespace: azTeam, Verb: "create", Resource: "configmaps"}
	sar, err = authz.SubjectAccessReviews().Create(callCtx(t), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: create},
	}, metav1.CreateOptions{})
	if err != nil || sar.Status.Allowed || sar.Status.Denied {
		t.Errorf("SubjectAccessReview alice create configmaps: %+v %v, want neither allowed nor denied", sar.Status, err)
	}
	lsar, err := authz.LocalSubjectAccessReviews(azTeam).Create(callCtx(t), &authorizationv1.LocalSubjectAccessReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: azTeam},
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice",
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: azTeam, Verb: "get", Resource: "configmaps", Name: "shared"}},
	}, metav1.CreateOptions{})
	if err != nil || !lsar.Status.Allowed {
		t.Errorf("LocalSubjectAccessReview alice get configmaps/shared in team: %+v %v", lsar, err)
	}

	alice := sc.s.clientset(t, azAlice.token).AuthorizationV1()
	_, err = alice.SubjectAccessReviews().Create(callCtx(t), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "frank", ResourceAttributes: list},
	}, metav1.CreateOptions{})
	azForbidden(t, "alice creates a SubjectAccessReview", err,
		`subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope`)
	ssar, err := alice.SelfSubjectAccessReviews().Create(callCtx(t), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: list},
	}, metav1.CreateOptions{})
	if err != nil || !ssar.Status.Allowed {
		t.Errorf("alice's SelfSubjectAccessReview list configmaps in team: %+v %v", ssar, err)
	}
	ssrr, err := alice.SelfSubjectRulesReviews().Create(callCtx(t), &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: azTeam},
	}, metav1.CreateOptions{})
	if err != nil || !slices.ContainsFunc(ssrr.Status.ResourceRules, func(r authorizationv1.ResourceRule) bool {
		return slices.Contains(r.Resources, "configmaps") && slices.Contains(r.Verbs, "list")
	}) {
		t.Errorf("alice's SelfSubjectRulesReview in team lacks list configmaps: %+v %v", ssrr, err)
	}
}

// anonymous: a request without credentials is system:anonymous, who may
// read the health and version paths and nothing else, not even discovery.
func (sc *rbacScenario) anonymous(t *testing.T) {
	anon := sc.s.http(t, "")
	base := sc.s.nd.url()
	azWantStatus(t, "anonymous list secrets", secMustDo(t, anon, http.MethodGet, base+"/api/v1/namespaces/team/secrets"), http.StatusForbidden, "Forbidden",
		`secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "team"`)
	azWantStatus(t, "anonymous list namespaces", secMustDo(t, anon, http.MethodGet, base+"/api/v1/namespaces"), http.StatusForbidden, "Forbidden",
		`namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope`)
	azWantStatus(t, "anonymous discovery", secMustDo(t, anon, http.MethodGet, base+"/api"), http.StatusForbidden, "Forbidden",
		`forbidden: User "system:anonymous" cannot get path "/api"`)
	for _, path := range []string{"/version", "/readyz", "/livez", "/healthz"} {
		if r := secMustDo(t, anon, http.MethodGet, base+path); r.code != http.StatusOK {
			t.Errorf("anonymous GET %s: HTTP %d %s", path, r.code, r.body)
		}
	}
	_, err := sc.s.clientset(t, "").CoreV1().Secrets(azTeam).List(callCtx(t), metav1.ListOptions{})
	azForbidden(t, "client-go without credentials lists secrets", err,
		`secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "team"`)
}

// TestSecurityAlwaysAllow starts a node with --authorization-mode
// AlwaysAllow and --anonymous-auth=false: a token-file user with no
// binding may do anything, admin endpoints and RBAC escalation included,
// and a request without credentials gets kube's 401 Status.
func TestSecurityAlwaysAllow(t *testing.T) {
	tokens := azTokenFile(t, t.TempDir(), azAlice)
	c := azStartCluster(t, 1, "--token-auth-file", tokens, "--authorization-mode", "AlwaysAllow", "--anonymous-auth=false")
	s := azServerOf(t, c.nodes[0])
	alice := s.kubectl(t, azAlice.token, "default")

	azWantExit(t, alice, 0, "yes\n", "auth", "can-i", "*", "*")
	azWantExit(t, alice, 0, "yes\n", "auth", "can-i", "delete", "namespaces", "--all-namespaces")
	if out := alice.ok(t, "create", "secret", "generic", "by-alice", "--from-literal=k=v"); out != "secret/by-alice created\n" {
		t.Errorf("alice creates a secret: %q", out)
	}
	if out := alice.ok(t, "get", "secret", "by-alice", "-o", "jsonpath={.data.k}"); out != "dg==" {
		t.Errorf("alice reads her secret: %q", out)
	}
	if out := alice.ok(t, "create", "clusterrolebinding", "alice-admin", "--clusterrole=cluster-admin", "--user=alice"); out != "clusterrolebinding.rbac.authorization.k8s.io/alice-admin created\n" {
		t.Errorf("alice binds cluster-admin: %q", out)
	}
	if r := secMustDo(t, s.http(t, azAlice.token), http.MethodGet, s.nd.url()+"/raftapi/v1/status"); r.code != http.StatusOK {
		t.Errorf("alice reads /raftapi/v1/status: HTTP %d %s", r.code, r.body)
	}

	anon := s.http(t, "")
	for _, path := range []string{"/api/v1/namespaces", "/readyz", "/version"} {
		azWantStatus(t, "GET "+path+" without credentials", secMustDo(t, anon, http.MethodGet, s.nd.url()+path), http.StatusUnauthorized, "Unauthorized", "Unauthorized")
	}
	_, err := s.clientset(t, "").CoreV1().Namespaces().List(callCtx(t), metav1.ListOptions{})
	var st *apierrors.StatusError
	if !errors.As(err, &st) || !apierrors.IsUnauthorized(err) || st.ErrStatus.Message != "Unauthorized" {
		t.Errorf("client-go without credentials: %v, want 401 Unauthorized", err)
	}
}
