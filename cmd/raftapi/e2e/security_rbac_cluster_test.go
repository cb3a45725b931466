package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestSecurityRBACAcrossNodes shows RBAC on a 3-node cluster: the
// bootstrap policy is served by every node; a grant made through node 1
// (a binding, then a rule added to a role) is enforced by node 3 within
// a second or so, and so is its revocation; a ServiceAccount token
// minted through node 1 authenticates on node 3 until the account is
// deleted through node 1. The delays are measured and logged.
func TestSecurityRBACAcrossNodes(t *testing.T) {
	tokens := azTokenFile(t, t.TempDir(), azAlice)
	c := azStartCluster(t, 3, "--token-auth-file", tokens)
	leader := c.waitLeader(-1)
	t.Logf("raft leader: %s", c.nodes[leader].name)
	s1, s2, s3 := azServerOf(t, c.nodes[0]), azServerOf(t, c.nodes[1]), azServerOf(t, c.nodes[2])

	t.Run("bootstrap-policy", func(t *testing.T) {
		for _, s := range []*azServer{s1, s2, s3} {
			azCheckBootstrapPolicy(t, s)
		}
	})
	t.Run("grant-and-revoke", func(t *testing.T) {
		azGrantAcrossNodes(t, s1.adminClientset(t), s2.clientset(t, azAlice.token), s3.clientset(t, azAlice.token))
	})
	t.Run("serviceaccount-token", func(t *testing.T) {
		azTokenAcrossNodes(t, s1.adminClientset(t), s3.clientset)
	})
}

// azCheckBootstrapPolicy runs kubectl get on kube's bootstrap
// ClusterRoles and ClusterRoleBindings through s.
func azCheckBootstrapPolicy(t *testing.T, s *azServer) {
	t.Helper()
	k := s.kubectl(t, "", "default")
	roles := []string{"cluster-admin", "admin", "edit", "view", "system:basic-user", "system:discovery", "system:public-info-viewer"}
	out := k.ok(t, append([]string{"get", "clusterrole", "-o", "name"}, roles...)...)
	var want strings.Builder
	for _, r := range roles {
		want.WriteString("clusterrole.rbac.authorization.k8s.io/" + r + "\n")
	}
	if out != want.String() {
		t.Errorf("%s: kubectl get clusterrole %s:\n%s\nwant:\n%s", s.nd.name, strings.Join(roles, " "), out, want.String())
	}
	bindings := []string{"cluster-admin", "system:basic-user", "system:discovery", "system:public-info-viewer"}
	out = k.ok(t, append([]string{"get", "clusterrolebinding", "-o", "jsonpath={range .items[*]}{.metadata.name}={.roleRef.name}:{.subjects[*].name}{\"\\n\"}{end}"}, bindings...)...)
	wantLines(t, out,
		`cluster-admin=cluster-admin:system:masters`,
		`system:basic-user=system:basic-user:system:authenticated`,
		`system:discovery=system:discovery:system:authenticated`,
		`system:public-info-viewer=system:public-info-viewer:system:authenticated system:unauthenticated`,
	)
	rules := k.ok(t, "get", "clusterrole", "cluster-admin", "-o", "jsonpath={.rules}")
	if !strings.Contains(rules, `"apiGroups":["*"]`) || !strings.Contains(rules, `"resources":["*"]`) || !strings.Contains(rules, `"nonResourceURLs":["*"]`) {
		t.Errorf("%s: cluster-admin's rules: %s", s.nd.name, rules)
	}
}

// azAliceList is alice listing configmaps in default.
func azAliceList(cs kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	return err
}

// azAliceForbidden is what alice is told while she may not list configmaps.
const azAliceForbidden = `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"`

// azMeasure polls cond every 10 ms until it holds, failing the test after
// azPropagation, and returns how long it took.
func azMeasure(t *testing.T, what string, cond func() error) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(azPropagation)
	for {
		err := cond()
		if err == nil {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, azPropagation, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// azAllowed is a condition met once alice may list configmaps via cs.
func azAllowed(cs kubernetes.Interface) func() error { return func() error { return azAliceList(cs) } }

// azDenied is a condition met once alice is refused listing configmaps
// via cs with kube's 403.
func azDenied(cs kubernetes.Interface) func() error {
	return func() error {
		err := azAliceList(cs)
		if apierrors.IsForbidden(err) && err.Error() == azAliceForbidden {
			return nil
		}
		return fmt.Errorf("alice lists configmaps: %v", err)
	}
}

// azGrantAcrossNodes grants alice through admin1 (node 1) and measures
// how long node 3 (alice3) takes to enforce the grant, then its
// revocation, first by binding and unbinding view, then by adding and
// removing a rule of a role already bound.
func azGrantAcrossNodes(t *testing.T, admin1, alice2, alice3 kubernetes.Interface) {
	azForbidden(t, "alice on node 3 before any grant", azAliceList(alice3), azAliceForbidden)

	azBindClusterRole(t, admin1, "default", "alice-view", "view", azUserSubject("alice"))
	d := azMeasure(t, "node 3 enforces a RoleBinding created through node 1", azAllowed(alice3))
	t.Logf("RoleBinding created through node 1: enforced by node 3 after %v", d)
	azMeasure(t, "node 2 enforces the RoleBinding", azAllowed(alice2))

	if err := admin1.RbacV1().RoleBindings("default").Delete(callCtx(t), "alice-view", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	d = azMeasure(t, "node 3 enforces the RoleBinding's deletion through node 1", azDenied(alice3))
	t.Logf("RoleBinding deleted through node 1: revoked on node 3 after %v", d)
	azMeasure(t, "node 2 enforces the RoleBinding's deletion", azDenied(alice2))

	getOnly := azRule("", []string{"configmaps"}, []string{"get"})
	azGrant(t, admin1, "default", "cm-reader", azUserSubject("alice"), getOnly)
	// The role is bound but grants no list: still refused everywhere.
	azMeasure(t, "node 3 sees the role without list", azDenied(alice3))
	azSetRules(t, admin1, "default", "cm-reader", azRule("", []string{"configmaps"}, []string{"get", "list"}))
	d = azMeasure(t, "node 3 enforces a rule added through node 1", azAllowed(alice3))
	t.Logf("rule added to a bound Role through node 1: enforced by node 3 after %v", d)
	azSetRules(t, admin1, "default", "cm-reader", getOnly)
	d = azMeasure(t, "node 3 enforces a rule removed through node 1", azDenied(alice3))
	t.Logf("rule removed from a bound Role through node 1: revoked on node 3 after %v", d)
}

// azTokenAcrossNodes creates a ServiceAccount and a token for it through
// admin1 (node 1), authenticates with the token on node 3 and deletes
// the account through node 1: node 3 must refuse the token soon after.
func azTokenAcrossNodes(t *testing.T, admin1 kubernetes.Interface, on3 func(*testing.T, string) kubernetes.Interface) {
	sa, err := admin1.CoreV1().ServiceAccounts("default").Create(callCtx(t), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "roamer"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := admin1.CoreV1().ServiceAccounts("default").CreateToken(callCtx(t), sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest through node 1: %v", err)
	}
	roamer := on3(t, tr.Status.Token)
	whoami := func() (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := roamer.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return r.Status.UserInfo.Username + " " + r.Status.UserInfo.UID, nil
	}
	want := "system:serviceaccount:default:roamer " + string(sa.UID)
	azMeasure(t, "node 3 accepts a token minted through node 1", func() error {
		got, err := whoami()
		if err == nil && got != want {
			err = fmt.Errorf("whoami: %q, want %q", got, want)
		}
		return err
	})

	if err := admin1.CoreV1().ServiceAccounts("default").Delete(callCtx(t), sa.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	d := azMeasure(t, "node 3 refuses the token of a ServiceAccount deleted through node 1", func() error {
		_, err := whoami()
		if apierrors.IsUnauthorized(err) {
			return nil
		}
		return fmt.Errorf("whoami with the token of a deleted account: %v", err)
	})
	t.Logf("ServiceAccount deleted through node 1: its token refused by node 3 after %v", d)
}
