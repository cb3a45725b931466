package cluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/raftapi/raftapi/api/audit"
)

// auditTestPolicy records configmaps with their bodies, nothing of the
// health checks the tests poll, and the rest at Metadata.
const auditTestPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz*", "/livez*", "/healthz*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
`

// startAuditedNode starts a one-node cluster auditing with
// auditTestPolicy and returns it with its log's path.
func startAuditedNode(t *testing.T) (*Node, string) {
	t.Helper()
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(auditTestPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "log", "audit.log")
	n, err := Start(Config{Name: "n1", DataDir: filepath.Join(dir, "data"), Listen: "127.0.0.1:0", PeerListen: "127.0.0.1:0",
		Audit: audit.Options{PolicyFile: policy, LogPath: logPath}})
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { stopNode(t, n) })
	pollUntil(t, "node ready", func() (bool, string) {
		code, body := httpDo(t, n, http.MethodGet, "/readyz", "")
		return code == http.StatusOK, body
	})
	return n, logPath
}

// auditEvents parses the log's lines.
func auditEvents(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

// findEvent polls the log for the event of stage matching match.
func findEvent(t *testing.T, path, what string, stage auditv1.Stage, match func(auditv1.Event) bool) auditv1.Event {
	t.Helper()
	var found auditv1.Event
	pollUntil(t, what, func() (bool, string) {
		evs := auditEvents(t, path)
		i := slices.IndexFunc(evs, func(ev auditv1.Event) bool { return ev.Stage == stage && match(ev) })
		if i < 0 {
			return false, "no such event"
		}
		found = evs[i]
		return true, ""
	})
	return found
}

// TestAuditThroughNode drives a node with client-go as the admin (a
// create, a get, a watch), as an anonymous user (refused by RBAC), with
// an unknown bearer token and with impersonation, and reads the events
// the serving chain wrote.
func TestAuditThroughNode(t *testing.T) {
	n, logPath := startAuditedNode(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", n.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = "audit-test/1.0"
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "audited"}, Data: map[string]string{"k": "v"}}
	created, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=audited"})
	if err != nil {
		t.Fatal(err)
	}
	<-w.ResultChan()
	w.Stop()

	isAdmin := func(ev auditv1.Event) bool {
		return ev.User.Username == "system:admin" && slices.Contains(ev.User.Groups, "system:masters")
	}
	ev := findEvent(t, logPath, "the create's ResponseComplete", auditv1.StageResponseComplete, func(ev auditv1.Event) bool { return ev.Verb == "create" })
	if !isAdmin(ev) || ev.Level != auditv1.LevelRequestResponse || ev.ResponseStatus.Code != http.StatusCreated || ev.UserAgent != "audit-test/1.0" {
		t.Errorf("create event: %+v", ev)
	}
	wantRef := auditv1.ObjectReference{Resource: "configmaps", Namespace: "default", Name: "audited", APIVersion: "v1"}
	if ev.ObjectRef == nil || *ev.ObjectRef != wantRef {
		t.Errorf("create objectRef %+v, want %+v", ev.ObjectRef, wantRef)
	}
	var req, resp corev1.ConfigMap
	if ev.RequestObject == nil || json.Unmarshal(ev.RequestObject.Raw, &req) != nil || req.Data["k"] != "v" {
		t.Errorf("create requestObject %v", ev.RequestObject)
	}
	if ev.ResponseObject == nil || json.Unmarshal(ev.ResponseObject.Raw, &resp) != nil || resp.UID != created.UID {
		t.Errorf("create responseObject %v, want the created object (uid %s)", ev.ResponseObject, created.UID)
	}
	if ev.Annotations[audit.DecisionAnnotationKey] != audit.DecisionAllow {
		t.Errorf("create annotations %v", ev.Annotations)
	}
	if len(ev.SourceIPs) != 1 || ev.SourceIPs[0] != "127.0.0.1" {
		t.Errorf("sourceIPs %v", ev.SourceIPs)
	}

	started := findEvent(t, logPath, "the watch's ResponseStarted", auditv1.StageResponseStarted, func(ev auditv1.Event) bool { return ev.Verb == "watch" })
	done := findEvent(t, logPath, "the watch's ResponseComplete", auditv1.StageResponseComplete, func(ev auditv1.Event) bool { return ev.Verb == "watch" })
	if started.AuditID != done.AuditID || started.ResponseStatus.Code != 200 || done.ResponseObject != nil || started.ObjectRef.Name != "audited" {
		t.Errorf("watch events: %+v then %+v", started, done)
	}

	checkRefusals(t, n, logPath)
}

// checkRefusals: an anonymous request refused by RBAC, an unknown bearer
// token and a refused impersonation are audited as kube audits them.
func checkRefusals(t *testing.T, n *Node, logPath string) {
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(c *http.Client, header ...string) string {
		req, _ := http.NewRequest(http.MethodGet, baseURL(n)+"/api/v1/namespaces/default/configmaps", nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Audit-Id")
	}

	id := get(anon)
	ev := findEvent(t, logPath, "the anonymous list", auditv1.StageResponseComplete, func(ev auditv1.Event) bool { return string(ev.AuditID) == id })
	if ev.User.Username != "system:anonymous" || ev.ResponseStatus.Code != http.StatusForbidden || ev.ResponseStatus.Reason != metav1.StatusReasonForbidden ||
		ev.Annotations[audit.DecisionAnnotationKey] != audit.DecisionForbid {
		t.Errorf("anonymous list: %+v", ev)
	}

	id = get(anon, "Authorization", "Bearer not-a-token")
	ev = findEvent(t, logPath, "the unauthenticated list", auditv1.StageResponseStarted, func(ev auditv1.Event) bool { return string(ev.AuditID) == id })
	if ev.User.Username != "" || ev.ResponseStatus.Code != http.StatusUnauthorized || ev.Verb != "list" {
		t.Errorf("unauthenticated list: %+v", ev)
	}

	id = get(adminClient(t, n), "Impersonate-User", "bob")
	ev = findEvent(t, logPath, "the impersonated list", auditv1.StageResponseComplete, func(ev auditv1.Event) bool { return string(ev.AuditID) == id })
	if ev.User.Username != "system:admin" || ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != "bob" || ev.ResponseStatus.Code != http.StatusForbidden {
		t.Errorf("impersonated list: user %+v impersonatedUser %+v status %+v", ev.User, ev.ImpersonatedUser, ev.ResponseStatus)
	}
}
