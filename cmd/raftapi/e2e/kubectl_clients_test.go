package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// kubectlTimeout bounds one kubectl invocation: `kubectl delete` waits for
// the object to be gone and would otherwise wait for a week.
const kubectlTimeout = 45 * time.Second

// kubectlBuild names one kubectl binary the tests drive.
type kubectlBuild struct {
	name string // short, used in subtest and namespace names
	env  string // variable naming the binary
	path string // empty: not available
	skip string // why it is not available
}

// kubectlBuilds returns the kubectl binaries to test with: the v1.32 one
// ($RAFTAPI_KUBECTL, else kubectl on PATH) and a current one
// ($RAFTAPI_KUBECTL_CURRENT, built by `make kubectl-current`).
func kubectlBuilds() []kubectlBuild {
	v132 := kubectlBuild{name: "v132", env: "RAFTAPI_KUBECTL", path: os.Getenv("RAFTAPI_KUBECTL")}
	if v132.path == "" {
		p, err := exec.LookPath("kubectl")
		v132.path = p
		if err != nil {
			v132.skip = "no kubectl on PATH and RAFTAPI_KUBECTL not set"
		}
	}
	cur := kubectlBuild{name: "current", env: "RAFTAPI_KUBECTL_CURRENT", path: os.Getenv("RAFTAPI_KUBECTL_CURRENT")}
	if cur.path == "" {
		cur.skip = "RAFTAPI_KUBECTL_CURRENT not set: run `make kubectl-current` and point it at bin/kubectl-current (make test-e2e does both)"
	}
	return []kubectlBuild{v132, cur}
}

// kubectl runs one kubectl binary against one node, with a kubeconfig of
// its own and a home directory (discovery cache) of its own.
type kubectl struct {
	bin string
	dir string // kubeconfig, home and manifests
	env []string
}

// kubectlResult is what a user sees of one kubectl run.
type kubectlResult struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r kubectlResult) String() string {
	return fmt.Sprintf("kubectl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// newKubectl writes a kubeconfig for the node at addr whose current
// context uses namespace ns: the node's admin kubeconfig, as an operator
// would copy it, with the namespace set.
func newKubectl(t *testing.T, bin, addr, ns string) *kubectl {
	t.Helper()
	dir := t.TempDir()
	nd, err := nodeAt(addr)
	if err != nil {
		t.Fatal(err)
	}
	config, err := clientcmd.LoadFromFile(nd.kubeconfig())
	if err != nil {
		t.Fatalf("%s: admin kubeconfig: %v", nd.name, err)
	}
	cur := config.Contexts[config.CurrentContext]
	if cur == nil || config.Clusters[cur.Cluster] == nil {
		t.Fatalf("%s: admin kubeconfig %s has no current context and cluster", nd.name, nd.kubeconfig())
	}
	cur.Namespace = ns
	config.Clusters[cur.Cluster].Server = nd.url()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*config, kubeconfig); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "KUBECONFIG="+kubeconfig, "HOME="+dir, "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	return &kubectl{bin: bin, dir: dir, env: env}
}

// run runs kubectl to completion.
func (k *kubectl) run(t *testing.T, args ...string) kubectlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, k.bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = k.env, &stdout, &stderr
	err := cmd.Run()
	res := kubectlResult{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("kubectl %s: still running after %v\n%s%s", strings.Join(args, " "), kubectlTimeout, res.stdout, res.stderr)
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// ok runs kubectl, requires exit code 0 and returns standard output.
func (k *kubectl) ok(t *testing.T, args ...string) string {
	t.Helper()
	res := k.run(t, args...)
	if res.code != 0 {
		t.Fatalf("want exit 0, got %v", res)
	}
	return res.stdout
}

// fails runs kubectl and requires exit code 1 with stderr matching re.
func (k *kubectl) fails(t *testing.T, re string, args ...string) {
	t.Helper()
	res := k.run(t, args...)
	if res.code != 1 || !regexp.MustCompile(re).MatchString(res.stderr) {
		t.Fatalf("want exit 1 and stderr matching %q, got %v", re, res)
	}
}

// manifest writes a manifest file and returns its path.
func (k *kubectl) manifest(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(k.dir, name+".yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// seed creates the objects of a manifest for a step that is not about
// `kubectl create -f` itself: client-side validation, which needs the
// server's OpenAPI, is the concern of the create-f step.
func (k *kubectl) seed(t *testing.T, path string, args ...string) {
	t.Helper()
	k.ok(t, append([]string{"create", "--validate=false", "-f", path}, args...)...)
}

// jsonpath returns a field of one object.
func (k *kubectl) jsonpath(t *testing.T, kind, name, path string) string {
	t.Helper()
	return k.ok(t, "get", kind, name, "-o", "jsonpath={"+path+"}")
}

// wantLines fails unless every pattern matches a whole line of out (lines
// are trimmed of trailing blanks).
func wantLines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !hasLine(out, p) {
			t.Errorf("no line matches %q in output:\n%s", p, out)
		}
	}
}

func hasLine(out, pattern string) bool {
	re := regexp.MustCompile("^" + pattern + "$")
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(strings.TrimRight(l, " \t")) {
			return true
		}
	}
	return false
}

// firstColumn returns the first field of every line after the header.
func firstColumn(out string) []string {
	var names []string
	for i, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(l); i > 0 && len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// watcher is a running `kubectl get -w` whose output lines arrive on lines.
type watcher struct {
	lines  chan string
	cancel context.CancelFunc
	done   chan struct{}
	seen   []string
}

// start starts a long-running kubectl; the test's cleanup stops it.
func (k *kubectl) start(t *testing.T, args ...string) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, k.bin, args...)
	cmd.Env = k.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watcher{lines: make(chan string, 1000), cancel: cancel, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- strings.TrimRight(sc.Text(), " ")
		}
		close(w.lines)
	}()
	go func() { _ = cmd.Wait(); close(w.done) }()
	t.Cleanup(func() {
		w.stop()
		if t.Failed() {
			t.Logf("kubectl %s stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
	})
	return w
}

// stop ends the process and waits for it.
func (w *watcher) stop() {
	w.cancel()
	<-w.done
}

// waitLine waits for an output line matching pattern.
func (w *watcher) waitLine(t *testing.T, pattern string) {
	t.Helper()
	re := regexp.MustCompile("^" + pattern + "$")
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				t.Fatalf("kubectl exited before printing a line matching %q; printed:\n%s", pattern, strings.Join(w.seen, "\n"))
			}
			w.seen = append(w.seen, l)
			if re.MatchString(l) {
				return
			}
		case <-deadline:
			t.Fatalf("no line matching %q within 20s; printed:\n%s", pattern, strings.Join(w.seen, "\n"))
		}
	}
}
