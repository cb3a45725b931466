package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Helpers of the tests of authorization, ServiceAccounts and audit (the
// TestSecurity… tests of issue #14). Every name is prefixed with az so
// that it cannot clash with the helpers of the other e2e tests.

// azPropagation bounds how long a change of roles or bindings, or the
// deletion of a ServiceAccount, may take to be enforced by every node: a
// user of kube-apiserver sees it within a second or so.
const azPropagation = 5 * time.Second

// azUser is one record of a --token-auth-file.
type azUser struct {
	token, name, uid string
	groups           []string
}

// azTokenFile writes users as kube-apiserver's --token-auth-file CSV into
// dir and returns its path.
func azTokenFile(t *testing.T, dir string, users ...azUser) string {
	t.Helper()
	var b strings.Builder
	for _, u := range users {
		fmt.Fprintf(&b, "%s,%s,%s", u.token, u.name, u.uid)
		if len(u.groups) > 0 {
			fmt.Fprintf(&b, ",%q", strings.Join(u.groups, ","))
		}
		b.WriteString("\n")
	}
	path := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// azStartCluster starts an n-node cluster as startReadyCluster does, but
// fails the test at once, with the node's log, if a node exits (a flag it
// does not know, say) instead of waiting for a leader that cannot come.
func azStartCluster(t *testing.T, n int, flags ...string) *procCluster {
	t.Helper()
	c := &procCluster{t: t, flags: flags}
	if n > 1 {
		c.token = newToken()
	}
	var initial []string
	for i := range n {
		nd := &node{name: fmt.Sprintf("n%d", i+1), dir: t.TempDir(), api: freeAddr(t), peer: freeAddr(t)}
		c.nodes = append(c.nodes, nd)
		initial = append(initial, nd.name+"="+nd.peer)
	}
	if n == 1 {
		initial = nil
	}
	for i := range c.nodes {
		c.startNode(i, strings.Join(initial, ","))
	}
	t.Cleanup(c.stopAll)
	for _, nd := range c.nodes {
		secEventually(t, secFormTimeout, nd.name+" /readyz", func() error {
			if !nd.running() {
				b, _ := os.ReadFile(filepath.Join(nd.dir, "log"))
				return secFatal{fmt.Errorf("%s exited: %s", nd.name, tail(string(b), 2000))}
			}
			return readyz(nd.api)
		})
	}
	c.waitLeader(-1)
	return c
}

// azServer is one node as the tests of authorization reach it: its URL,
// the cluster CA and the admin's client configuration.
type azServer struct {
	nd     *node
	caData []byte
	admin  *rest.Config
}

// azServerOf reads nd's admin kubeconfig.
func azServerOf(t *testing.T, nd *node) *azServer {
	t.Helper()
	cfg, err := nd.restConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 20 * time.Second
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	if len(ca) == 0 {
		t.Fatalf("%s: the admin kubeconfig holds no CA", nd.name)
	}
	return &azServer{nd: nd, caData: ca, admin: cfg}
}

// as is a client configuration authenticating with a bearer token; ""
// presents no credential at all.
func (s *azServer) as(token string) *rest.Config {
	cfg := rest.AnonymousClientConfig(s.admin)
	cfg.BearerToken = token
	cfg.QPS, cfg.Burst = 1000, 1000
	return cfg
}

// clientset is a typed client authenticating with token.
func (s *azServer) clientset(t *testing.T, token string) kubernetes.Interface {
	t.Helper()
	return secClientset(t, s.as(token))
}

// adminClientset is a typed client authenticating as the admin.
func (s *azServer) adminClientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	return secClientset(t, s.admin)
}

// http is an HTTP client authenticating with token ("" for none).
func (s *azServer) http(t *testing.T, token string) *http.Client {
	t.Helper()
	return secHTTP(t, s.as(token))
}

// azKubectlBin is the kubectl v1.32 binary, or the test is skipped.
func azKubectlBin(t *testing.T) string {
	t.Helper()
	b := kubectlBuilds()[0]
	if b.path == "" {
		t.Skip(b.skip)
	}
	return b.path
}

// kubectl returns kubectl (v1.32) driving the node as the holder of
// token in namespace ns, with a kubeconfig and a discovery cache of its
// own; token "" is the admin of the node's kubeconfig.
func (s *azServer) kubectl(t *testing.T, token, ns string) *kubectl {
	t.Helper()
	bin := azKubectlBin(t)
	if token == "" {
		return newKubectl(t, bin, s.nd.api, ns)
	}
	dir := t.TempDir()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["raftapi"] = &clientcmdapi.Cluster{Server: s.nd.url(), CertificateAuthorityData: s.caData}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["user"] = &clientcmdapi.Context{Cluster: "raftapi", AuthInfo: "user", Namespace: ns}
	cfg.CurrentContext = "user"
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	return &kubectl{bin: bin, dir: dir, env: env}
}

// azWantExit runs kubectl and requires exit code code and standard output
// equal to stdout; it returns the result.
func azWantExit(t *testing.T, k *kubectl, code int, stdout string, args ...string) kubectlResult {
	t.Helper()
	res := k.run(t, args...)
	if res.code != code || res.stdout != stdout {
		t.Errorf("want exit %d and stdout %q, got %v", code, stdout, res)
	}
	return res
}

// azFails runs kubectl and requires exit code 1 with standard error
// containing want.
func azFails(t *testing.T, k *kubectl, want string, args ...string) {
	t.Helper()
	res := k.run(t, args...)
	if res.code != 1 || !strings.Contains(res.stderr, want) {
		t.Errorf("want exit 1 and stderr containing %q, got %v", want, res)
	}
}

// azUntilOK runs kubectl until it exits 0 (a grant may take a moment to
// be enforced) and returns its standard output.
func azUntilOK(t *testing.T, k *kubectl, args ...string) string {
	t.Helper()
	var res kubectlResult
	secEventually(t, azPropagation, "kubectl "+strings.Join(args, " "), func() error {
		res = k.run(t, args...)
		if res.code != 0 {
			return errors.New(res.String())
		}
		return nil
	})
	return res.stdout
}

// azForbidden fails unless err is kube's 403 Forbidden Status with exactly
// message msg.
func azForbidden(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if !apierrors.IsForbidden(err) || err.Error() != msg {
		t.Errorf("%s: got %v (%T), want 403 Forbidden %q", what, err, err, msg)
	}
}

// azStatus is the part of a Kubernetes Status the tests read.
type azStatus struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Reason     string `json:"reason"`
	Code       int    `json:"code"`
}

// azWantStatus fails unless r is a JSON Status with HTTP code code,
// reason reason and message msg.
func azWantStatus(t *testing.T, what string, r secResponse, code int, reason, msg string) {
	t.Helper()
	var st azStatus
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Errorf("%s: HTTP %d, body %q is no Status: %v", what, r.code, r.body, err)
		return
	}
	want := azStatus{Kind: "Status", APIVersion: "v1", Status: metav1.StatusFailure, Message: msg, Reason: reason, Code: code}
	if r.code != code || st != want || !strings.HasPrefix(r.ctype, "application/json") {
		t.Errorf("%s: HTTP %d %s %+v, want HTTP %d application/json %+v", what, r.code, r.ctype, st, code, want)
	}
}

// azBindClusterRole binds ClusterRole role to subject in namespace ns
// (cluster-wide when ns is "").
func azBindClusterRole(t *testing.T, cs kubernetes.Interface, ns, name, role string, subject rbacv1.Subject) {
	t.Helper()
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}
	meta := metav1.ObjectMeta{Name: name, Namespace: ns}
	var err error
	if ns == "" {
		_, err = cs.RbacV1().ClusterRoleBindings().Create(callCtx(t), &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: []rbacv1.Subject{subject}}, metav1.CreateOptions{})
	} else {
		_, err = cs.RbacV1().RoleBindings(ns).Create(callCtx(t), &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: []rbacv1.Subject{subject}}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("bind ClusterRole %s to %s %s in %q: %v", role, subject.Kind, subject.Name, ns, err)
	}
}

// azGrant creates Role name in ns with rules and binds it to subject (a
// RoleBinding of the same name).
func azGrant(t *testing.T, cs kubernetes.Interface, ns, name string, subject rbacv1.Subject, rules ...rbacv1.PolicyRule) {
	t.Helper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: rules}
	if _, err := cs.RbacV1().Roles(ns).Create(callCtx(t), role, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Role %s/%s: %v", ns, name, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{subject},
	}
	if _, err := cs.RbacV1().RoleBindings(ns).Create(callCtx(t), rb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create RoleBinding %s/%s: %v", ns, name, err)
	}
}

// azSetRules replaces the rules of Role name in ns.
func azSetRules(t *testing.T, cs kubernetes.Interface, ns, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	secEventually(t, 10*time.Second, "update Role "+ns+"/"+name, func() error {
		role, err := cs.RbacV1().Roles(ns).Get(callCtx(t), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		role.Rules = rules
		_, err = cs.RbacV1().Roles(ns).Update(callCtx(t), role, metav1.UpdateOptions{})
		return err
	})
}

// azUserSubject returns the RBAC subject naming user name.
func azUserSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

// azSubjectSA returns the RBAC subject naming ServiceAccount ns/name.
func azSubjectSA(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

// azRule is a policy rule.
func azRule(group string, resources, verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs, ResourceNames: names}
}
