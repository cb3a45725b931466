package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestStaticTokenAuth starts a node with kube-apiserver's
// --token-auth-file and --anonymous-auth=false: kubectl and client-go
// authenticate with a token of the file (and have what RBAC grants its
// groups), an unknown token is refused as
// kube refuses it, kubectl --as impersonates for the admin only, kubectl
// auth whoami names the caller, and a request without credentials gets 401
// even on /livez.
func TestStaticTokenAuth(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("t-alice-0123456789,alice,uid-1,\"dev,ops\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, 1, "--token-auth-file", tokens, "--anonymous-auth=false")
	nd := c.nodes[0]
	admin, err := clientcmd.LoadFromFile(nd.kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	var caData []byte
	for _, cl := range admin.Clusters {
		caData = cl.CertificateAuthorityData
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, caData, 0o600); err != nil {
		t.Fatal(err)
	}

	cfg := &rest.Config{Host: nd.url(), BearerToken: "t-alice-0123456789", TLSClientConfig: rest.TLSClientConfig{CAData: caData}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The group dev may read everything and edit the default namespace.
	for _, args := range [][]string{
		{"create", "clusterrolebinding", "dev-view", "--clusterrole=view", "--group=dev"},
		{"create", "rolebinding", "dev-edit", "--clusterrole=edit", "--group=dev", "-n", "default"},
	} {
		if out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", nd.kubeconfig()}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
	}
	if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("client-go with a file token: %v", err)
	}
	kubectl := func(token string, args ...string) (string, error) {
		all := append([]string{"--server", nd.url(), "--certificate-authority", caFile, "--token", token}, args...)
		out, err := exec.CommandContext(ctx, "kubectl", all...).CombinedOutput()
		return string(out), err
	}
	if out, err := kubectl("t-alice-0123456789", "create", "configmap", "by-alice", "--from-literal=k=v"); err != nil {
		t.Fatalf("kubectl with a file token: %v\n%s", err, out)
	}
	if out, err := kubectl("t-mallory", "get", "configmaps"); err == nil || !strings.Contains(out, "You must be logged in to the server") {
		t.Fatalf("kubectl with an unknown token: %v\n%s", err, out)
	}

	// Impersonation: the admin may act as bob (and is then bob, who may
	// not read the admin endpoints); alice may not impersonate.
	asBob := exec.CommandContext(ctx, "kubectl", "--kubeconfig", nd.kubeconfig(), "--as", "bob", "--as-group", "dev", "get", "configmap", "by-alice", "-o", "name")
	if out, err := asBob.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "configmap/by-alice" {
		t.Fatalf("kubectl --as bob: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", nd.kubeconfig(), "--as", "bob", "get", "--raw", "/raftapi/v1/status").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `Error from server (Forbidden): forbidden: User "bob" cannot get path "/raftapi/v1/status"`) {
		t.Fatalf("the admin as bob reads /raftapi/v1/status: %v\n%s", err, out)
	}
	if out, err := kubectl("t-alice-0123456789", "--as", "bob", "get", "configmaps"); err == nil ||
		!strings.Contains(out, `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`) {
		t.Fatalf("alice impersonating bob: %v\n%s", err, out)
	}

	// kubectl auth whoami, for a file token and for an impersonation.
	if out, err := kubectl("t-alice-0123456789", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}/{.status.userInfo.uid}/{.status.userInfo.groups}"); err != nil ||
		out != `alice/uid-1/["dev","ops","system:authenticated"]` {
		t.Fatalf("kubectl auth whoami as alice: %v\n%s", err, out)
	}
	whoami, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", nd.kubeconfig(), "--as", "bob", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}").CombinedOutput()
	if err != nil || string(whoami) != "bob" {
		t.Fatalf("kubectl auth whoami --as bob: %v\n%s", err, whoami)
	}

	pool := rest.TLSClientConfig{CAData: caData}
	tr, err := rest.TransportFor(&rest.Config{Host: nd.url(), TLSClientConfig: pool})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(nd.url() + "/livez")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/livez without credentials and --anonymous-auth=false: %s, want 401", resp.Status)
	}
}
