package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/raftapi/raftapi/pki"
)

// Helpers of the TestSecurity… tests. Every name is prefixed with sec so
// that it cannot clash with the helpers of the other e2e tests.

// secFormTimeout bounds how long a cluster may take to start, elect and
// become ready on a busy machine.
const secFormTimeout = 90 * time.Second

// secNode is one raftapi process these tests start: its log and its data
// directory live in dir.
type secNode struct {
	name, dir, data   string
	api, peer, gossip string
	process
	cleanup bool // the stop at the end of the test is registered
}

// secNewNode allocates a node's directory and addresses; withGossip adds a
// gossip address.
func secNewNode(t *testing.T, name string, withGossip bool) *secNode {
	t.Helper()
	dir := t.TempDir()
	n := &secNode{name: name, dir: dir, data: filepath.Join(dir, "data"), api: freeAddr(t), peer: freeAddr(t)}
	if withGossip {
		n.gossip = freeAddr(t)
	}
	return n
}

// args is the serve command line for n's name, data and addresses, then
// extra.
func (n *secNode) args(extra ...string) []string {
	a := []string{"serve", "--name", n.name, "--data-dir", n.data, "--listen", n.api, "--peer-listen", n.peer, "--log-level", "warn"}
	if n.gossip != "" {
		a = append(a, "--gossip-listen", n.gossip)
	}
	return append(a, extra...)
}

// start runs n with extra flags; the process is killed at the end of the
// test, and its log shown if the test failed.
func (n *secNode) start(t *testing.T, extra ...string) {
	t.Helper()
	n.process = spawn(t, n.dir, n.args(extra...))
	if !n.cleanup {
		n.cleanup = true
		t.Cleanup(func() {
			n.stop()
			logTail(t, n.name, n.dir)
		})
	}
}

// stop ends the process, gracefully if it goes within ten seconds.
func (n *secNode) stop() {
	if n.cmd == nil || !n.running() {
		return
	}
	n.signal(syscall.SIGTERM)
	if !n.waitExit(10 * time.Second) {
		n.kill()
	}
}

// log returns n's log from byte offset from on.
func (n *secNode) log(from int64) string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "log"))
	if from > int64(len(b)) {
		return ""
	}
	return string(b[from:])
}

// logSize is the current length of n's log, to read only what follows.
func (n *secNode) logSize() int64 {
	fi, err := os.Stat(filepath.Join(n.dir, "log"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// kubeconfig waits for the admin kubeconfig n writes at start and returns
// its path.
func (n *secNode) kubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(n.data, "admin.kubeconfig")
	secEventually(t, secFormTimeout, n.name+" writes its admin kubeconfig", func() error {
		_, err := os.Stat(path)
		if err != nil && !n.running() {
			return secFatal{fmt.Errorf("%s exited: %s", n.name, tail(n.log(0), 2000))}
		}
		return err
	})
	return path
}

// config is the client configuration of n's admin kubeconfig.
func (n *secNode) config(t *testing.T) *rest.Config {
	t.Helper()
	return secRESTConfig(t, n.kubeconfig(t))
}

// secFatal ends secEventually at once: waiting longer cannot help.
type secFatal struct{ error }

// secEventually polls cond until it returns nil; it fails the test with
// the last error if timeout passes first, or at once on a secFatal.
func secEventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		var fatal secFatal
		if errors.As(err, &fatal) {
			t.Fatalf("%s: %v", what, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// secHolds checks that invariant keeps holding, polling it for d; it
// fails the test at the first violation.
func secHolds(t *testing.T, d time.Duration, what string, invariant func() error) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if err := invariant(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// secRESTConfig loads a kubeconfig file.
func secRESTConfig(t *testing.T, kubeconfig string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatalf("load %s: %v", kubeconfig, err)
	}
	cfg.Timeout = 15 * time.Second
	return cfg
}

// secHTTP is an HTTP client authenticated and verifying the server as cfg
// says.
func secHTTP(t *testing.T, cfg *rest.Config) *http.Client {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return hc
}

// secAnonymous is an HTTP client that verifies the server as cfg says but
// presents no credential.
func secAnonymous(t *testing.T, cfg *rest.Config) *http.Client {
	t.Helper()
	return secHTTP(t, rest.AnonymousClientConfig(cfg))
}

// secClientset is a typed clientset for cfg.
func secClientset(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// secResponse is an HTTP exchange's outcome.
type secResponse struct {
	code  int
	body  []byte
	ctype string
}

// secDo sends one request with the given headers (name, value pairs).
func secDo(hc *http.Client, method, url string, headers ...string) (secResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return secResponse{}, err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		return secResponse{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return secResponse{code: resp.StatusCode, body: body, ctype: resp.Header.Get("Content-Type")}, err
}

// secMustDo is secDo failing the test on a transport error.
func secMustDo(t *testing.T, hc *http.Client, method, url string, headers ...string) secResponse {
	t.Helper()
	r, err := secDo(hc, method, url, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

// secWaitReady waits until n answers /readyz with 200, anonymously.
func secWaitReady(t *testing.T, n *secNode) {
	t.Helper()
	hc := secAnonymous(t, n.config(t))
	secEventually(t, secFormTimeout, n.name+" ready", func() error {
		if !n.running() {
			return secFatal{fmt.Errorf("%s exited: %s", n.name, tail(n.log(0), 2000))}
		}
		r, err := secDo(hc, http.MethodGet, "https://"+n.api+"/readyz")
		if err != nil {
			return err
		}
		if r.code != http.StatusOK {
			return fmt.Errorf("HTTP %d: %s", r.code, r.body)
		}
		return nil
	})
}

// secStatus is the part of /raftapi/v1/status these tests read.
type secStatus struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	Term        uint64 `json:"term"`
	LeaderID    string `json:"leaderID"`
	CommitIndex uint64 `json:"commitIndex"`
}

// status reads n's raft status as the admin.
func (n *secNode) status(t *testing.T) (secStatus, error) {
	t.Helper()
	var st secStatus
	r, err := secDo(secHTTP(t, n.config(t)), http.MethodGet, "https://"+n.api+"/raftapi/v1/status")
	if err != nil {
		return st, err
	}
	if r.code != http.StatusOK {
		return st, fmt.Errorf("status: HTTP %d: %s", r.code, r.body)
	}
	return st, json.Unmarshal(r.body, &st)
}

// secWaitLeader waits until every node of nodes reports the same leader,
// one of them, and returns it with its status.
func secWaitLeader(t *testing.T, nodes []*secNode) (*secNode, secStatus) {
	t.Helper()
	var leader *secNode
	var lst secStatus
	secEventually(t, secFormTimeout, "an agreed leader", func() error {
		id := ""
		for _, n := range nodes {
			st, err := n.status(t)
			if err != nil {
				return err
			}
			if st.LeaderID == "" || (id != "" && st.LeaderID != id) {
				return fmt.Errorf("%s sees leader %q, others %q", n.name, st.LeaderID, id)
			}
			id = st.LeaderID
		}
		for _, n := range nodes {
			if n.name == id {
				st, err := n.status(t)
				if err != nil || st.State != "Leader" {
					return fmt.Errorf("%s is not leading: %v %v", id, st.State, err)
				}
				leader, lst = n, st
				return nil
			}
		}
		return fmt.Errorf("leader %q is none of the nodes", id)
	})
	return leader, lst
}

// members returns the sorted names of the raft members n reports.
func (n *secNode) members(t *testing.T) ([]string, error) {
	t.Helper()
	r, err := secDo(secHTTP(t, n.config(t)), http.MethodGet, "https://"+n.api+"/apis/raftapi.io/v1/members")
	if err != nil {
		return nil, err
	}
	if r.code != http.StatusOK {
		return nil, fmt.Errorf("members: HTTP %d: %s", r.code, r.body)
	}
	var l struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.body, &l); err != nil {
		return nil, err
	}
	var names []string
	for _, it := range l.Items {
		names = append(names, it.Metadata.Name)
	}
	slices.Sort(names)
	return names, nil
}

// secNames returns the sorted names of nodes.
func secNames(nodes []*secNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.name)
	}
	slices.Sort(out)
	return out
}

// secStartStatic starts a static cluster of size nodes sharing token and
// waits until every node is ready and agrees on a leader.
func secStartStatic(t *testing.T, prefix string, size int, token string) []*secNode {
	t.Helper()
	var nodes []*secNode
	var initial []string
	for i := range size {
		n := secNewNode(t, fmt.Sprintf("%s%d", prefix, i+1), false)
		nodes = append(nodes, n)
		initial = append(initial, n.name+"="+n.peer)
	}
	for _, n := range nodes {
		n.start(t, "--initial-cluster", strings.Join(initial, ","), "--token", token)
	}
	for _, n := range nodes {
		secWaitReady(t, n)
	}
	secWaitLeader(t, nodes)
	return nodes
}

// secKubectl runs kubectl with kubeconfig and returns its combined output.
func secKubectl(kubeconfig string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig, "--request-timeout", "20s"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// secMustKubectl is secKubectl failing the test on an error.
func secMustKubectl(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	out, err := secKubectl(kubeconfig, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// secRunErr runs the binary with args to completion and returns its
// combined output and error.
func secRunErr(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// secAuthority derives the PKI of the cluster whose node keeps its data in
// dataDir, as any node of it would.
func secAuthority(t *testing.T, dataDir string) *pki.Authority {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := pki.ParseToken(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return secDerive(t, tok.Secret)
}

// secDerive derives the PKI of the cluster whose secret is secret.
func secDerive(t *testing.T, secret string) *pki.Authority {
	t.Helper()
	a, err := pki.Derive(secret)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// secIssue issues a client and server certificate from ca.
func secIssue(t *testing.T, ca *pki.CA, cn string, orgs ...string) tls.Certificate {
	t.Helper()
	leaf, err := ca.Issue(pki.LeafSpec{CommonName: cn, Organization: orgs, Client: true, Server: true})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := leaf.TLS(ca)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// secCertClient is an HTTP client presenting cert (if any) and trusting
// only roots. It presents cert even when the server's list of acceptable
// CAs does not name its issuer (a Go client would then send none), so
// that the server, not the client, decides.
func secCertClient(roots *x509.CertPool, cert *tls.Certificate) *http.Client {
	cfg := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if cert != nil {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
}

// secCAPool is the pool of the CA a rest.Config verifies servers with.
func secCAPool(t *testing.T, cfg *rest.Config) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	data := cfg.CAData
	if len(data) == 0 && cfg.CAFile != "" {
		var err error
		if data, err = os.ReadFile(cfg.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	if !pool.AppendCertsFromPEM(data) {
		t.Fatal("the kubeconfig holds no CA certificate")
	}
	return pool
}

// secWriteKubeconfig writes a kubeconfig for server with a CA file and a
// client certificate and key given as files.
func secWriteKubeconfig(t *testing.T, path, server, caFile, certFile, keyFile string) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: caFile}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientCertificate: certFile, ClientKey: keyFile}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "c"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

// secReadUntilClosed reads conn until the peer closes it or limit passes;
// it returns what was read, how long it took and whether the connection
// was closed by the peer (rather than the limit passing).
func secReadUntilClosed(conn net.Conn, limit time.Duration) ([]byte, time.Duration, bool) {
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(limit))
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			var ne net.Error
			timedOut := errors.As(err, &ne) && ne.Timeout()
			return got, time.Since(start), !timedOut
		}
	}
}
