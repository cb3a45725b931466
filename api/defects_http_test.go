package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Regression tests for defects fixed after the split of the api package.
// Each asserts what kube-apiserver answers where the old code did not.

// leasePath returns the path of the leases of ns, or of one of them when
// name is given.
func leasePath(ns string, name ...string) string {
	p := "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases"
	if len(name) > 0 {
		p += "/" + name[0]
	}
	return p
}

// newLease returns a lease named name held by holder.
func newLease(name, holder string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}
}

// objectRV returns metadata.resourceVersion of a JSON object.
func objectRV(t testing.TB, what string, data []byte) string {
	t.Helper()
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("%s: not a JSON object (%v): %s", what, err, truncate(data))
	}
	return o.Metadata.ResourceVersion
}

// wantObjectTable checks that r is a one-row Table whose
// metadata.resourceVersion is the object's, wantRV, and that its row's
// PartialObjectMetadata carries the same version.
func wantObjectTable(t testing.TB, r *response, wantRV string) {
	t.Helper()
	var tbl metav1.Table
	r.decode(t, &tbl)
	if tbl.Kind != "Table" || tbl.APIVersion != "meta.k8s.io/v1" {
		t.Errorf("%s: kind %q apiVersion %q, want Table meta.k8s.io/v1", r.what, tbl.Kind, tbl.APIVersion)
	}
	if wantRV == "" {
		t.Fatalf("%s: the object has no resourceVersion to compare with", r.what)
	}
	if tbl.ResourceVersion != wantRV {
		t.Errorf("%s: Table metadata.resourceVersion %q, want the object's %q", r.what, tbl.ResourceVersion, wantRV)
	}
	if len(tbl.Rows) != 1 {
		t.Fatalf("%s: %d rows, want 1: %s", r.what, len(tbl.Rows), truncate(r.Body))
	}
	if rv := objectRV(t, r.what+" row object", tbl.Rows[0].Object.Raw); rv != wantRV {
		t.Errorf("%s: row object resourceVersion %q, want %q", r.what, rv, wantRV)
	}
}

// TestDefectTableResourceVersion checks that a single object answered as
// a Table, to a get or a create, carries the object's resourceVersion in
// the Table's metadata.resourceVersion, as kube-apiserver's table
// convertor sets it (the old code left it empty).
func TestDefectTableResourceVersion(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	createCM(t, s, ns, configMap("a", nil, map[string]string{"k": "v"}))
	s.do(t, http.MethodPost, leasePath(ns), newLease("l", "me")).wantCode(t, http.StatusCreated)

	t.Run("Get", func(t *testing.T) {
		for _, path := range []string{cmPath(ns, "a"), leasePath(ns, "l")} {
			t.Run(path, func(t *testing.T) {
				obj := s.do(t, http.MethodGet, path, nil).wantCode(t, http.StatusOK)
				rv := objectRV(t, obj.what, obj.Body)
				r := s.do(t, http.MethodGet, path, nil, accept(tableV1)).wantCode(t, http.StatusOK)
				wantObjectTable(t, r, rv)
			})
		}
	})

	t.Run("Create", func(t *testing.T) {
		cases := []struct {
			name       string
			collection string
			body       any
			item       string
		}{
			{"ConfigMap", cmPath(ns), configMap("as-table", nil, map[string]string{"k": "v"}), cmPath(ns, "as-table")},
			{"Lease", leasePath(ns), newLease("as-table", "me"), leasePath(ns, "as-table")},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := s.do(t, http.MethodPost, c.collection, c.body, accept(tableV1)).wantCode(t, http.StatusCreated)
				r.wantContentType(t, "application/json")
				stored := s.do(t, http.MethodGet, c.item, nil).wantCode(t, http.StatusOK)
				wantObjectTable(t, r, objectRV(t, stored.what, stored.Body))
			})
		}
	})
}

// tooLargeMessage is kube-apiserver's message for a resourceVersion a
// node has not reached: storage.NewTooLargeResourceVersionError's text
// behind the "Timeout: " that apierrors.NewTimeoutError puts first.
var tooLargeMessage = regexp.MustCompile(`^Timeout: Too large resource version: (\d+), current: (\d+)$`)

// TestDefectTooLargeResourceVersionCurrent checks that the 504 for a
// resourceVersion far beyond the node's names, after "current:", the
// node's applied revision, not the version asked for again (the old
// message was "Too large resource version: N, current: N").
func TestDefectTooLargeResourceVersionCurrent(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 3)
	ns := newNamespace(t, tc.Leader)
	createCM(t, tc.Leader, ns, configMap("a", nil, nil))

	for _, node := range []struct {
		name string
		s    *testServer
	}{{"Leader", tc.Leader}, {"Follower", tc.Follower}} {
		t.Run(node.name, func(t *testing.T) {
			s := node.s
			// The list's resourceVersion is the revision the node has
			// applied; nothing writes between it and the reads below.
			before := rvOf(t, listCMs(t, s, cmPath(ns)).ResourceVersion)
			n := before + 1_000_000
			rv := strconv.FormatUint(n, 10)
			paths := []string{
				cmPath(ns, "a") + query("resourceVersion", rv),
				cmPath(ns) + query("resourceVersion", rv),
				cmPath(ns) + query("resourceVersion", rv, "resourceVersionMatch", "NotOlderThan"),
			}
			for i, r := range s.getAll(t, paths...) {
				st := r.wantStatus(t, http.StatusGatewayTimeout, metav1.StatusReasonTimeout)
				r.wantRetryAfter(t)
				wantCause(t, st, metav1.CauseTypeResourceVersionTooLarge, "")
				m := tooLargeMessage.FindStringSubmatch(st.Message)
				if m == nil {
					t.Errorf("%s: message %q, want %q", paths[i], st.Message, "Timeout: Too large resource version: "+rv+", current: M")
					continue
				}
				if m[1] != rv {
					t.Errorf("%s: message %q names version %s, want %s", paths[i], st.Message, m[1], rv)
				}
				current, err := strconv.ParseUint(m[2], 10, 64)
				if err != nil {
					t.Errorf("%s: current %q: %v", paths[i], m[2], err)
					continue
				}
				if after := s.Store.Revision(); current < before || current > after || current >= n {
					t.Errorf("%s: message %q: current %d, want the node's applied revision: in [%d, %d] (list before, revision after) and below %d",
						paths[i], st.Message, current, before, after, n)
				}
			}
		})
	}
}

// TestDefectWatchHugeTimeout checks that a watch whose timeoutSeconds
// does not fit a time.Duration is served as an ordinary watch: 200, then
// the events of objects created after it started (the old code answered
// 500 or closed the stream at once).
func TestDefectWatchHugeTimeout(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	for _, timeout := range []string{"9300000000", "9223372036", "9223372037"} {
		t.Run(timeout, func(t *testing.T) {
			ns := newNamespace(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), eventually)
			defer cancel()
			path := watchPath(ns, "timeoutSeconds", timeout)
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
			if err != nil {
				t.Fatalf("new request: %v", err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("watch %s: %v", path, err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("watch %s: status %d, want 200: %s", path, resp.StatusCode, truncate(body))
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("watch %s: Content-Type %q, want application/json", path, ct)
			}
			created := createCM(t, s, ns, configMap("after-start", nil, nil))
			dec := json.NewDecoder(resp.Body)
			for {
				var ev watchEvent
				if err := dec.Decode(&ev); err != nil {
					t.Fatalf("watch %s: stream ended (%v) before the ADDED event of %s", path, err, created.Name)
				}
				if ev.Type == "ADDED" && ev.cm(t).Name == created.Name {
					if got := ev.cm(t).ResourceVersion; got != created.ResourceVersion {
						t.Errorf("ADDED %s at %s, want %s", created.Name, got, created.ResourceVersion)
					}
					break
				}
			}
		})
	}
}

// TestDefectMethodNotAllowedNamesResource checks that the 405 for a method
// no route serves names the resource (group-qualified for a group
// resource), as apierrors.NewMethodNotSupported prints it, not a path
// segment such as the object's name.
func TestDefectMethodNotAllowedNamesResource(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	createCM(t, s, "default", configMap("myname", nil, nil))
	s.do(t, http.MethodPost, leasePath("default"), newLease("myname", "me")).wantCode(t, http.StatusCreated)

	cases := []struct {
		method, path string
		group, kind  string
		message      string
	}{
		{"TRACE", cmPath("default", "myname"), "", "configmaps", `trace is not supported on resources of kind "configmaps"`},
		{"FOO", cmPath("default", "myname"), "", "configmaps", `foo is not supported on resources of kind "configmaps"`},
		{"OPTIONS", cmPath("default", "myname"), "", "configmaps", `options is not supported on resources of kind "configmaps"`},
		{"TRACE", cmPath("default"), "", "configmaps", `trace is not supported on resources of kind "configmaps"`},
		{"TRACE", leasePath("default", "myname"), "coordination.k8s.io", "leases", `trace is not supported on resources of kind "leases.coordination.k8s.io"`},
		{"FOO", leasePath("default", "myname"), "coordination.k8s.io", "leases", `foo is not supported on resources of kind "leases.coordination.k8s.io"`},
		{"TRACE", leasePath("default"), "coordination.k8s.io", "leases", `trace is not supported on resources of kind "leases.coordination.k8s.io"`},
		{"TRACE", "/api/v1/namespaces/default", "", "namespaces", `trace is not supported on resources of kind "namespaces"`},
		{"TRACE", "/api/v1/namespaces/default/status", "", "namespaces", `trace is not supported on resources of kind "namespaces"`},
		{"TRACE", "/api/v1/namespaces/default/finalize", "", "namespaces", `trace is not supported on resources of kind "namespaces"`},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			st := s.do(t, c.method, c.path, nil).wantStatus(t, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed)
			if st.Message != c.message {
				t.Errorf("message %q, want %q", st.Message, c.message)
			}
			if st.Details == nil || st.Details.Group != c.group || st.Details.Kind != c.kind {
				t.Errorf("details %+v, want group %q kind %q", st.Details, c.group, c.kind)
			}
		})
	}
}

// noRedirects is a client that returns redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// rawGet sends GET rawPath to base with the path on the request line
// exactly as given, not cleaned or re-escaped, and does not follow
// redirects.
func rawGet(t testing.TB, base, rawPath string) *response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), eventually)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/", nil)
	if err != nil {
		t.Fatalf("GET %s: %v", rawPath, err)
	}
	req.URL.Opaque = rawPath
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawPath, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", rawPath, err)
	}
	return &response{Code: resp.StatusCode, Header: resp.Header, Body: body, what: "GET " + rawPath}
}

// rawRequestLine sends "GET target HTTP/1.1" on its own connection to
// base, so that even a target Go's client would rewrite reaches the
// server as written, and returns the status code and Content-Type.
func rawRequestLine(t testing.TB, base, target string) (int, string) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, eventually)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(eventually))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, u.Host); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type")
}

// TestDefectLeadingDoubleSlash: a request target starting with "//" is
// read by Go as a host and a path; it must not serve that path, nor
// redirect to that host.
func TestDefectLeadingDoubleSlash(t *testing.T) {
	t.Parallel()
	s := newTestCluster(t, 1).Leader
	for _, target := range []string{"//evil.example/api/v1/namespaces/default", "//evil.example", "//"} {
		code, ct := rawRequestLine(t, s.URL, target)
		if code != http.StatusNotFound || ct != "application/json" {
			t.Errorf("GET %s = %d %s, want a 404 Status", target, code, ct)
		}
	}
}

// uncleanPaths are paths with "..", ".", "//" or an escaped slash; each
// would, cleaned or unescaped, name a resource that exists.
var uncleanPaths = []string{
	"/api/v1/namespaces/default/../kube-system/configmaps",
	"/api/v1//namespaces",
	"/api/v1/namespaces/default/configmaps%2Ffoo",
	"/api/v1/namespaces/./default",
	"/apis/coordination.k8s.io/v1/namespaces/default/leases/../../kube-system/leases",
}

// TestDefectUncleanPaths checks that a request for an unclean path gets a
// 404 Status, never an HTML redirect page or the resource the cleaned
// path names.
func TestDefectUncleanPaths(t *testing.T) {
	t.Parallel()

	// The requests reach a server with their paths as written.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	defer echo.Close()
	for _, p := range uncleanPaths {
		if got := rawGet(t, echo.URL, p); string(got.Body) != p {
			t.Fatalf("request for %s reached the server as %s", p, got.Body)
		}
	}

	tc := newTestCluster(t, 1)
	s := tc.Leader
	// configmaps%2Ffoo unescaped is the configmap foo: make it exist.
	createCM(t, s, "default", configMap("foo", nil, nil))
	rawGet(t, s.URL, cmPath("default", "foo")).wantCode(t, http.StatusOK)

	for _, p := range uncleanPaths {
		t.Run(p, func(t *testing.T) {
			r := rawGet(t, s.URL, p)
			if loc := r.Header.Get("Location"); loc != "" {
				t.Errorf("%s: redirected to %s", r.what, loc)
			}
			r.wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
			r.wantContentType(t, "application/json")
		})
	}
}
