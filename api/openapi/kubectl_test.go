package openapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/mux"

	"github.com/raftapi/raftapi/api/discovery"
	"github.com/raftapi/raftapi/api/openapi"
)

// kubectl runs kubectl against url with an empty kubeconfig and a private
// cache, and returns its output.
func kubectl(t *testing.T, url string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--server=" + url, "--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(dir, "cache")}, args...)
	cmd := exec.CommandContext(t.Context(), "kubectl", args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+kubeconfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("kubectl %s:\n%s", strings.Join(args[3:], " "), out)
	return string(out)
}

func TestKubectl(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := newServer(t, testRegistry())

	tests := []struct {
		args []string
		want []string // regular expressions the output must match
	}{
		{[]string{"explain", "configmaps"}, []string{
			`(?m)^KIND:\s+ConfigMap$`, `(?m)^VERSION:\s+v1$`,
			`ConfigMap holds configuration data for pods to consume`,
			`(?m)^  binaryData\t<map\[string\]string>$`, `(?m)^  metadata\t<ObjectMeta>$`,
			`Data contains the configuration data`,
		}},
		{[]string{"explain", "configmaps.data"}, []string{
			`(?m)^FIELD: data <map\[string\]string>$`, `Data contains the configuration data`,
		}},
		{[]string{"explain", "configmaps.metadata.creationTimestamp"}, []string{
			`(?m)^FIELD: creationTimestamp <string>$`, `CreationTimestamp is a timestamp`,
		}},
		{[]string{"explain", "leases.spec"}, []string{
			`(?m)^GROUP:\s+coordination.k8s.io$`, `(?m)^KIND:\s+Lease$`, `(?m)^FIELD: spec <LeaseSpec>$`,
			`LeaseSpec is a specification of a Lease`, `(?m)^  holderIdentity\t<string>$`,
			`holderIdentity contains the identity of the holder`, `(?m)^  renewTime\t<string>$`,
		}},
		{[]string{"explain", "namespaces.status.conditions"}, []string{
			`(?m)^FIELD: conditions <\[\]NamespaceCondition>$`, `(?m)^  type\t<string> -required-$`,
		}},
		{[]string{"explain", "crontabs"}, []string{
			`(?m)^GROUP:\s+stable.example.com$`, `(?m)^KIND:\s+CronTab$`, `(?m)^  metadata\t<ObjectMeta>$`,
		}},
		{[]string{"explain", "leases.spec", "--output=plaintext-openapiv2"}, []string{
			`(?m)^RESOURCE: spec <Object>$`, `LeaseSpec is a specification of a Lease`,
			`(?m)^   holderIdentity\t<string>$`, `holderIdentity contains the identity of the holder`,
		}},
		{[]string{"api-resources"}, []string{
			`(?m)^configmaps\s+cm\s+v1\s+true\s+ConfigMap$`,
			`(?m)^namespaces\s+ns\s+v1\s+false\s+Namespace$`,
			`(?m)^secrets\s+v1\s+true\s+Secret$`,
			`(?m)^leases\s+coordination.k8s.io/v1\s+true\s+Lease$`,
			`(?m)^crontabs\s+ct\s+stable.example.com/v1\s+true\s+CronTab$`,
		}},
		{[]string{"api-versions"}, []string{
			`(?m)^v1$`, `(?m)^coordination.k8s.io/v1$`, `(?m)^stable.example.com/v1$`,
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out := kubectl(t, srv.URL, tt.args...)
			for _, want := range tt.want {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("output does not match %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestKubectlFieldValidation checks that kubectl finds the fieldValidation
// parameter in the documents and leaves validation to the server: an
// object with an unknown field reaches the (accepting) resource handler
// with fieldValidation=Strict instead of failing client-side validation.
func TestKubectlFieldValidation(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	reg := testRegistry()
	r := mux.NewRouter()
	discovery.NewHandler(reg).Routes(r)
	openapi.NewHandler(reg).Routes(r)
	var (
		mu         sync.Mutex
		validation []string
	)
	r.HandleFunc("/api/v1/namespaces/{namespace}/configmaps", func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		validation = append(validation, req.URL.Query().Get("fieldValidation"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.Copy(w, req.Body)
	}).Methods(http.MethodPost)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)

	manifest := filepath.Join(t.TempDir(), "cm.yaml")
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: default\nbogus: field\ndata:\n  a: b\n"
	if err := os.WriteFile(manifest, []byte(cm), 0o600); err != nil {
		t.Fatal(err)
	}
	out := kubectl(t, srv.URL, "create", "--validate=strict", "-f", manifest)
	if !strings.Contains(out, "configmap/cm created") {
		t.Errorf("kubectl create: %s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(validation) != 1 || validation[0] != "Strict" {
		t.Errorf("server saw fieldValidation %q, want one request with Strict", validation)
	}
}
