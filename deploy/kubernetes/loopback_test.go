package kubernetes

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// loopbackNamespace stands for the namespace the manifests are applied in.
const loopbackNamespace = "default"

// readyTimeout bounds how long the loopback cluster may take to form and
// answer /readyz on every node.
const readyTimeout = 60 * time.Second

// TestStatefulSetArgsStartACluster starts one raftapi process per replica
// with the StatefulSet's container args, translated as the cluster would
// resolve them but onto loopback: $(POD_NAME) is raftapi-N, $(POD_IP) and
// 0.0.0.0 are 127.0.0.1, $(NAMESPACE) is default, each pod's DNS name in
// the headless Service is 127.0.0.1, each container port is a free port of
// that node, and each volume is a temporary directory (the token Secret's
// holding a token file). The nodes must form one cluster by gossip and
// answer /readyz the way the kubelet's probe asks (HTTPS, certificate not
// verified), with the client Service's names in their certificate. Then
// the README's way to get a kubeconfig, raftapi kubeconfig with the same
// token, must yield credentials the cluster accepts.
func TestStatefulSetArgsStartACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	_, p := loadPod(t)
	bin := raftapiBinary(t)
	token := generateToken(t, bin)
	replicas := int(*p.sts.Spec.Replicas)
	ports := make([]map[int32]int, replicas)
	for i := range ports {
		ports[i] = freePorts(t, p.c.Ports)
	}
	for i := range replicas {
		l := &loopback{p: p, node: i, ports: ports, dirs: map[string]string{}}
		l.makeVolumes(t, token)
		startNode(t, bin, fmt.Sprintf("%s-%d", p.sts.Name, i), l.args(t))
	}
	deadline := time.Now().Add(readyTimeout)
	for i := range replicas {
		addr := "127.0.0.1:" + strconv.Itoa(ports[i][apiPort])
		waitReady(t, addr, deadline)
		checkServingNames(t, addr, p, (&loopback{p: p, node: i}).env())
	}
	client := checkKubeconfigFromToken(t, bin, token, "127.0.0.1:"+strconv.Itoa(ports[0][apiPort]))
	checkMembers(t, client, p, ports)
}

// loopback translates the pod's args for node number node.
type loopback struct {
	p     *pod
	node  int
	ports []map[int32]int   // per node: container port -> local port
	dirs  map[string]string // volume name -> local directory
}

func (l *loopback) env() map[string]string {
	return map[string]string{
		nodeNameEnv:  fmt.Sprintf("%s-%d", l.p.sts.Name, l.node),
		podIPEnv:     "127.0.0.1",
		namespaceEnv: loopbackNamespace,
	}
}

// makeVolumes makes a directory per volume mount; the token Secret's
// holds the token under each item's path.
func (l *loopback) makeVolumes(t *testing.T, token string) {
	t.Helper()
	for _, vm := range l.p.c.VolumeMounts {
		dir := filepath.Join(t.TempDir(), vm.Name)
		if err := os.Mkdir(dir, 0o750); err != nil {
			t.Fatal(err)
		}
		l.dirs[vm.Name] = dir
		v := l.p.volume(vm.Name)
		if v == nil || v.Secret == nil {
			continue
		}
		for _, it := range v.Secret.Items {
			if err := os.WriteFile(filepath.Join(dir, it.Path), []byte(token+"\n"), 0o400); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// args returns "serve" and the translated flags.
func (l *loopback) args(t *testing.T) []string {
	t.Helper()
	out := []string{"serve"}
	for _, f := range l.p.flags {
		v := expand(f.value, l.env())
		if f.name != "tls-san" {
			v = l.addresses(t, f.name, v)
			v = l.path(v)
		}
		out = append(out, "--"+f.name+"="+v)
	}
	return out
}

// podDNS matches a pod's name in the headless Service.
func (l *loopback) podDNS() *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(l.p.sts.Name) + `-(\d+)\.` +
		regexp.QuoteMeta(l.p.sts.Spec.ServiceName+"."+loopbackNamespace+".svc") + `(\.cluster\.local)?$`)
}

// addresses maps each host:port in a comma-separated value to loopback.
func (l *loopback) addresses(t *testing.T, flag, v string) string {
	t.Helper()
	items := strings.Split(v, ",")
	for i, item := range items {
		host, ps, err := net.SplitHostPort(item)
		if err != nil {
			continue
		}
		port, err := strconv.Atoi(ps)
		if err != nil {
			continue
		}
		node := l.node
		if m := l.podDNS().FindStringSubmatch(host); m != nil {
			node, _ = strconv.Atoi(m[1])
		} else if host != "0.0.0.0" && host != "127.0.0.1" {
			t.Fatalf("--%s: no loopback translation for host %s", flag, host)
		}
		if node >= len(l.ports) {
			t.Fatalf("--%s: %s names pod %d of %d", flag, item, node, len(l.ports))
		}
		local, ok := l.ports[node][int32(port)]
		if !ok {
			t.Fatalf("--%s: port %d is no container port", flag, port)
		}
		items[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(local))
	}
	return strings.Join(items, ",")
}

// path moves a path inside a volume mount to that volume's directory.
func (l *loopback) path(v string) string {
	if !strings.HasPrefix(v, "/") {
		return v
	}
	vm, ok := l.p.mountOf(v)
	if !ok {
		return v
	}
	rel, _ := filepath.Rel(vm.MountPath, v)
	return filepath.Join(l.dirs[vm.Name], rel)
}

func generateToken(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "token", "generate").Output()
	if err != nil {
		t.Fatalf("raftapi token generate: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// freePorts picks a free local port for each container port number (free
// for TCP and UDP alike).
func freePorts(t *testing.T, cps []corev1.ContainerPort) map[int32]int {
	t.Helper()
	out := map[int32]int{}
	for _, cp := range cps {
		if _, ok := out[cp.ContainerPort]; !ok {
			out[cp.ContainerPort] = freePort(t)
		}
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		pc, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		ln.Close()
		if err == nil {
			pc.Close()
			return port
		}
	}
	t.Fatal("no port free for both TCP and UDP")
	return 0
}

// startNode runs the binary until the test ends, then stops it with
// SIGTERM (SIGKILL after 30 s), logging its output if the test failed.
func startNode(t *testing.T, bin, name string, args []string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: raftapi %s", name, strings.Join(args, " "))
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
}

// probeClient asks as the kubelet's HTTPS probes do: no certificate
// verification, no client certificate.
var probeClient = &http.Client{
	Timeout:   2 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
}

// waitReady waits for /livez and /readyz of the API at addr to answer 200.
func waitReady(t *testing.T, addr string, deadline time.Time) {
	t.Helper()
	for _, path := range []string{"/livez", "/readyz"} {
		var last string
		for {
			code, body, err := get(probeClient, "https://"+addr+path)
			if err == nil && code == http.StatusOK {
				break
			}
			last = fmt.Sprintf("%d %s %v", code, body, err)
			if time.Now().After(deadline) {
				t.Fatalf("https://%s%s not 200 after %s: %s", addr, path, readyTimeout, last)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func get(c *http.Client, url string) (int, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b)), err
}

// checkServingNames: the node's serving certificate holds the names
// --tls-san gives, expanded with the node's env.
func checkServingNames(t *testing.T, addr string, p *pod, env map[string]string) {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	names := conn.ConnectionState().PeerCertificates[0].DNSNames
	for _, f := range p.flags {
		if f.name != "tls-san" {
			continue
		}
		for _, san := range strings.Split(expand(f.value, env), ",") {
			if !slices.Contains(names, san) {
				t.Errorf("%s: serving certificate names %v, not %s", addr, names, san)
			}
		}
	}
}

// checkKubeconfigFromToken follows README.md: raftapi kubeconfig makes
// an admin kubeconfig from the token alone (the CA and the client
// certificate derive from it); pointed at a node of the cluster it must be
// accepted. It returns a client with those credentials.
func checkKubeconfigFromToken(t *testing.T, bin, token, clusterAddr string) *http.Client {
	t.Helper()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "admin.kubeconfig")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "kubeconfig", "--token-file", tokenFile,
		"--server", "https://"+clusterAddr, "-o", path).CombinedOutput()
	if err != nil {
		t.Fatalf("raftapi kubeconfig: %v\n%s", err, out)
	}
	var buf bytes.Buffer
	client := waitKubeconfig(t, path, &buf).client(t)
	code, body, err := get(client, "https://"+clusterAddr+"/api/v1/namespaces/kube-system")
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET kube-system from the cluster with the kubeconfig made from the token: %d %s %v", code, body, err)
	}
	return client
}

// checkMembers: the nodes formed one cluster whose voters are the pods,
// each at the peer address it advertised.
func checkMembers(t *testing.T, client *http.Client, p *pod, ports []map[int32]int) {
	t.Helper()
	url := "https://127.0.0.1:" + strconv.Itoa(ports[0][apiPort]) + "/apis/raftapi.io/v1/members"
	code, body, err := get(client, url)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET %s: %d %s %v", url, code, body, err)
	}
	var list struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Status   struct {
				PeerAddress string `json:"peerAddress"`
				Suffrage    string `json:"suffrage"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := yaml.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range list.Items {
		got[m.Metadata.Name] = m.Status.Suffrage + " " + m.Status.PeerAddress
	}
	want := map[string]string{}
	for i := range ports {
		want[fmt.Sprintf("%s-%d", p.sts.Name, i)] = "Voter 127.0.0.1:" + strconv.Itoa(ports[i][peerPort])
	}
	if !maps.Equal(got, want) {
		t.Errorf("members %v, want %v", got, want)
	}
}

// kubeconfigFile is the part of a kubeconfig the test uses.
type kubeconfigFile struct {
	Clusters []struct {
		Cluster struct {
			CA []byte `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		User struct {
			Cert []byte `json:"client-certificate-data"`
			Key  []byte `json:"client-key-data"`
		} `json:"user"`
	} `json:"users"`
}

func waitKubeconfig(t *testing.T, path string, out *bytes.Buffer) *kubeconfigFile {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var kc kubeconfigFile
		if yaml.Unmarshal(b, &kc) == nil && len(kc.Clusters) == 1 && len(kc.Users) == 1 {
			return &kc
		}
	}
	t.Fatalf("no kubeconfig at %s; the node said:\n%s", path, out)
	return nil
}

// client verifies the server with the kubeconfig's CA (as 127.0.0.1, a
// name in every node's certificate) and presents its client certificate.
func (kc *kubeconfigFile) client(t *testing.T) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(kc.Clusters[0].Cluster.CA) {
		t.Fatal("kubeconfig: no CA certificate")
	}
	cert, err := tls.X509KeyPair(kc.Users[0].User.Cert, kc.Users[0].User.Key)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Timeout: 5 * time.Second, Transport: tr}
}
