package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// azAuditPolicy is the --audit-policy-file of the audit test: nothing for
// the user quiet, requests and responses for configmaps, metadata for
// everything else.
const azAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  users: ["quiet"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
`

// azQuiet is the token-file user the audit policy does not log.
var azQuiet = azUser{token: "az-quiet-0123456789", name: "quiet", uid: "uid-quiet"}

// azAuditID is the Audit-ID a request of the audit test brings.
const azAuditID = "e2e-audit-id-0001"

// TestSecurityAudit starts a node with --audit-policy-file and
// --audit-log-path, drives it with kubectl as the admin, as alice (who
// may do nothing) and as quiet (whom the policy does not log), and reads
// the log as JSON lines of audit.k8s.io/v1 Events: each request has its
// RequestReceived and ResponseComplete stages under one audit ID, at the
// level its rule says (RequestResponse for configmaps with both bodies,
// Metadata without them), with the user, verb, objectRef, source IP,
// user agent and response code; a refused request carries
// authorization.k8s.io/decision=forbid, an allowed one allow; a caller's
// Audit-ID is kept and echoed. With --audit-log-maxsize 1 and
// --audit-log-maxbackup 1 the log rotates, keeping one backup.
func TestSecurityAudit(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(azAuditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit", "audit.log")
	tokens := azTokenFile(t, dir, azAlice, azQuiet)
	c := azStartCluster(t, 1, "--token-auth-file", tokens, "--audit-policy-file", policy, "--audit-log-path", logPath,
		"--audit-log-maxsize", "1", "--audit-log-maxbackup", "1")
	s := azServerOf(t, c.nodes[0])
	admin := s.kubectl(t, "", "default")

	admin.ok(t, "create", "configmap", "audited", "--from-literal=k=v")
	admin.ok(t, "get", "secrets")
	azFails(t, s.kubectl(t, azAlice.token, "default"), `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"`, "get", "configmaps")
	azFails(t, s.kubectl(t, azQuiet.token, "default"), `configmaps is forbidden: User "quiet" cannot list resource "configmaps" in API group "" in the namespace "default"`, "get", "configmaps")
	hc := secHTTP(t, s.admin)
	r, err := hc.Do(azRequest(t, s.nd.url()+"/api/v1/namespaces/default/configmaps/audited", "Audit-ID", azAuditID))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK || r.Header.Get("Audit-Id") != azAuditID {
		t.Errorf("GET with Audit-ID %s: HTTP %d, Audit-Id header %q", azAuditID, r.StatusCode, r.Header.Get("Audit-Id"))
	}

	var events []auditv1.Event
	var create, list, forbid, byID *auditv1.Event
	secEventually(t, 10*time.Second, "the audit events of the requests made", func() error {
		events = azAuditEvents(t, logPath)
		create = azFindEvent(events, "create", "configmaps", "system:admin", auditv1.StageResponseComplete)
		list = azFindEvent(events, "list", "secrets", "system:admin", auditv1.StageResponseComplete)
		forbid = azFindEvent(events, "list", "configmaps", "alice", auditv1.StageResponseComplete)
		byID = nil
		for i := range events {
			if events[i].AuditID == azAuditID && events[i].Stage == auditv1.StageResponseComplete {
				byID = &events[i]
			}
		}
		if create == nil || list == nil || forbid == nil || byID == nil {
			return fmt.Errorf("%d events; found create configmap %v, list secrets %v, alice's list %v, audit ID %s %v",
				len(events), create != nil, list != nil, forbid != nil, azAuditID, byID != nil)
		}
		return nil
	})
	t.Run("every-event", func(t *testing.T) { azCheckEvents(t, events) })
	t.Run("request-response", func(t *testing.T) { azCheckCreate(t, events, create) })
	t.Run("metadata", func(t *testing.T) { azCheckList(t, list) })
	t.Run("forbidden", func(t *testing.T) { azCheckForbidden(t, forbid) })
	t.Run("none", func(t *testing.T) {
		if e := azFindEvent(events, "", "", "quiet", ""); e != nil {
			t.Errorf("the policy logs nothing of quiet, yet: %+v", e)
		}
	})
	t.Run("audit-id", func(t *testing.T) {
		if byID.Verb != "get" || byID.ObjectRef == nil || byID.ObjectRef.Name != "audited" || byID.Level != auditv1.LevelRequestResponse || byID.ResponseStatus == nil || byID.ResponseStatus.Code != 200 {
			t.Errorf("event of the request with Audit-ID %s: %s", azAuditID, azJSON(byID))
		}
	})
	t.Run("rotation", func(t *testing.T) { azCheckRotation(t, s, logPath) })
}

// azCheckRotation writes configmaps big enough (RequestResponse events of
// 600 KB) to rotate the 1 MB log twice: one backup is kept beside the
// log, neither exceeds the limit, both hold whole events only, and the
// last write is in them.
func azCheckRotation(t *testing.T, s *azServer, logPath string) {
	admin := s.adminClientset(t)
	value := strings.Repeat("x", 300<<10)
	for i := range 4 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%d", i)}, Data: map[string]string{"v": value}}
		if _, err := admin.CoreV1().ConfigMaps("default").Create(callCtx(t), cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create configmap %s: %v", cm.Name, err)
		}
	}
	backups := func() []string {
		m, _ := filepath.Glob(filepath.Join(filepath.Dir(logPath), "audit-*.log"))
		return m
	}
	secEventually(t, 10*time.Second, "one audit log backup (--audit-log-maxbackup 1)", func() error {
		if b := backups(); len(b) != 1 {
			return fmt.Errorf("backups %v", b)
		}
		return nil
	})
	var all []auditv1.Event
	for _, f := range append(backups(), logPath) {
		if fi, err := os.Stat(f); err != nil || fi.Size() > 1<<20 {
			t.Errorf("%s: %v, larger than --audit-log-maxsize 1 (MB)?", f, err)
		}
		all = append(all, azAuditEvents(t, f)...)
	}
	last := azFindEvent(all, "create", "configmaps", "system:admin", auditv1.StageResponseComplete)
	if last == nil || last.ObjectRef.Name != "big-3" || last.RequestObject == nil || len(last.RequestObject.Raw) < 300<<10 {
		t.Errorf("the last create's event after rotation: %.300s", azJSON(last))
	}
}

// azRequest is a GET of url with headers (name, value pairs).
func azRequest(t *testing.T, url string, headers ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(callCtx(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// azAuditEvents reads the complete lines of the audit log at path, each
// of which must be one audit.k8s.io/v1 Event in JSON.
func azAuditEvents(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	} else {
		return nil
	}
	var events []auditv1.Event
	for n, line := range bytes.Split(b, []byte("\n")) {
		var e auditv1.Event
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("audit log line %d is no audit.k8s.io/v1 Event: %v\n%s", n+1, err, line)
		}
		events = append(events, e)
	}
	return events
}

// azFindEvent returns the last event matching verb, resource, user and
// stage ("" matches any).
func azFindEvent(events []auditv1.Event, verb, resource, user string, stage auditv1.Stage) *auditv1.Event {
	for i := len(events) - 1; i >= 0; i-- {
		e := &events[i]
		res := ""
		if e.ObjectRef != nil {
			res = e.ObjectRef.Resource
		}
		if (verb == "" || e.Verb == verb) && (resource == "" || res == resource) && (user == "" || e.User.Username == user) && (stage == "" || e.Stage == stage) {
			return e
		}
	}
	return nil
}

// azCheckEvents checks what every event must have.
func azCheckEvents(t *testing.T, events []auditv1.Event) {
	stages := map[types.UID][]auditv1.Stage{}
	for _, e := range events {
		stages[e.AuditID] = append(stages[e.AuditID], e.Stage)
		switch {
		case e.Kind != "Event" || e.APIVersion != "audit.k8s.io/v1":
			t.Errorf("kind %q apiVersion %q: %s", e.Kind, e.APIVersion, azJSON(&e))
		case e.AuditID == "" || e.RequestURI == "" || e.Verb == "" || e.User.Username == "":
			t.Errorf("event without audit ID, URI, verb or user: %s", azJSON(&e))
		case e.Level != auditv1.LevelMetadata && e.Level != auditv1.LevelRequestResponse:
			t.Errorf("level %q, which no rule of the policy gives: %s", e.Level, azJSON(&e))
		case !slices.Equal(e.SourceIPs, []string{"127.0.0.1"}):
			t.Errorf("sourceIPs %v: %s", e.SourceIPs, azJSON(&e))
		case e.RequestReceivedTimestamp.IsZero() || e.StageTimestamp.Before(&e.RequestReceivedTimestamp):
			t.Errorf("timestamps: %s", azJSON(&e))
		case e.Stage == auditv1.StageResponseComplete && e.ResponseStatus == nil:
			t.Errorf("ResponseComplete without responseStatus: %s", azJSON(&e))
		case e.Stage == auditv1.StageRequestReceived && e.ResponseStatus != nil:
			t.Errorf("RequestReceived with a responseStatus: %s", azJSON(&e))
		}
	}
	for id, st := range stages {
		if !slices.Contains(st, auditv1.StageResponseComplete) || (len(st) > 0 && st[0] != auditv1.StageRequestReceived) {
			t.Errorf("audit ID %s has stages %v, want RequestReceived first and a ResponseComplete", id, st)
		}
	}
}

// azCheckCreate checks kubectl create configmap's events: both stages at
// RequestResponse, the admin, the object, 201, both bodies.
func azCheckCreate(t *testing.T, events []auditv1.Event, e *auditv1.Event) {
	ref := e.ObjectRef
	switch {
	case e.Level != auditv1.LevelRequestResponse:
		t.Errorf("level %s, want RequestResponse", e.Level)
	case !slices.Contains(e.User.Groups, "system:masters"):
		t.Errorf("user %+v", e.User)
	case ref == nil || ref.Namespace != "default" || ref.Name != "audited" || ref.APIGroup != "" || ref.APIVersion != "v1":
		t.Errorf("objectRef %+v", ref)
	case !strings.HasPrefix(e.RequestURI, "/api/v1/namespaces/default/configmaps?"):
		t.Errorf("requestURI %q", e.RequestURI)
	case e.ResponseStatus.Code != http.StatusCreated:
		t.Errorf("responseStatus %+v, want 201", e.ResponseStatus)
	case e.RequestObject == nil || !bytes.Contains(e.RequestObject.Raw, []byte(`"k":"v"`)):
		t.Errorf("requestObject %s", azJSON(e.RequestObject))
	case e.ResponseObject == nil || !bytes.Contains(e.ResponseObject.Raw, []byte(`"uid":`)):
		t.Errorf("responseObject %s", azJSON(e.ResponseObject))
	case !strings.HasPrefix(e.UserAgent, "kubectl/"):
		t.Errorf("userAgent %q", e.UserAgent)
	case e.Annotations["authorization.k8s.io/decision"] != "allow":
		t.Errorf("annotations %v, want authorization.k8s.io/decision=allow", e.Annotations)
	}
	received := slices.IndexFunc(events, func(r auditv1.Event) bool {
		return r.AuditID == e.AuditID && r.Stage == auditv1.StageRequestReceived
	})
	if received < 0 {
		t.Errorf("no RequestReceived event for audit ID %s", e.AuditID)
	} else if r := events[received]; r.Level != auditv1.LevelRequestResponse || r.Verb != "create" || r.ResponseObject != nil {
		t.Errorf("RequestReceived event: %s", azJSON(&r))
	}
}

// azCheckList checks kubectl get secrets' event: Metadata, no bodies.
func azCheckList(t *testing.T, e *auditv1.Event) {
	ref := e.ObjectRef
	if e.Level != auditv1.LevelMetadata || ref == nil || ref.Namespace != "default" || ref.Name != "" || ref.APIVersion != "v1" ||
		e.ResponseStatus.Code != http.StatusOK || e.RequestObject != nil || e.ResponseObject != nil {
		t.Errorf("list secrets event: %s", azJSON(e))
	}
}

// azCheckForbidden checks alice's refused list: 403 and decision forbid.
func azCheckForbidden(t *testing.T, e *auditv1.Event) {
	if e.ResponseStatus.Code != http.StatusForbidden || e.Annotations["authorization.k8s.io/decision"] != "forbid" ||
		e.Level != auditv1.LevelRequestResponse || !slices.Equal(e.User.Groups, []string{"dev", "system:authenticated"}) {
		t.Errorf("alice's refused list: %s", azJSON(e))
	}
}

// azJSON renders v for a failure message.
func azJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
