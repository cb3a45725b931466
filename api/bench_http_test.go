package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/builtin"
	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// Throughput of a custom resource beside a ConfigMap of about the same
// size, through the whole HTTP API of a 1-node store: decoding (for the
// custom resource, pruning and defaulting by its schema), admission
// (its OpenAPI schema and CEL rules), managedFields, the raft write, the
// response. BenchmarkCustomResourceValidate measures the strategy's
// validation alone, with and without the CEL rules.

const (
	benchGroup = "bench.raftapi.io"
	benchCMs   = "/api/v1/namespaces/default/configmaps"
	benchCRs   = "/apis/" + benchGroup + "/v1/namespaces/default/apps"
)

// benchCRDJSON is a CRD with a schema like a small workload's: nested
// objects, a list-map, int-or-string quantities, defaults, enums, a
// pattern, bounds, and three CEL rules.
const benchCRDJSON = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"apps.bench.raftapi.io"},
"spec":{"group":"bench.raftapi.io","scope":"Namespaced",
 "names":{"plural":"apps","singular":"app","kind":"App","listKind":"AppList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","required":["image"],
    "x-kubernetes-validations":[
     {"rule":"self.minReplicas <= self.replicas","message":"replicas below minReplicas"},
     {"rule":"self.ports.all(p, p.containerPort != 22)","message":"port 22 is reserved"},
     {"rule":"!has(self.resources) || !has(self.resources.limits) || self.resources.limits.size() <= 4"}],
    "properties":{
     "image":{"type":"string","maxLength":256,"pattern":"^[a-z0-9./:-]+$"},
     "replicas":{"type":"integer","format":"int32","minimum":0,"maximum":1000,"default":1},
     "minReplicas":{"type":"integer","format":"int32","minimum":0,"default":0},
     "strategy":{"type":"string","enum":["RollingUpdate","Recreate"],"default":"RollingUpdate"},
     "ports":{"type":"array","maxItems":16,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["containerPort"],
      "items":{"type":"object","required":["containerPort"],"properties":{
       "name":{"type":"string","maxLength":15},
       "containerPort":{"type":"integer","minimum":1,"maximum":65535},
       "protocol":{"type":"string","enum":["TCP","UDP"],"default":"TCP"}}}},
     "env":{"type":"array","maxItems":32,"items":{"type":"object","required":["name"],"properties":{
       "name":{"type":"string","maxLength":64},"value":{"type":"string","maxLength":1024}}}},
     "resources":{"type":"object","properties":{
       "limits":{"type":"object","maxProperties":8,"additionalProperties":{"x-kubernetes-int-or-string":true}},
       "requests":{"type":"object","maxProperties":8,"additionalProperties":{"x-kubernetes-int-or-string":true}}}}}},
   "status":{"type":"object","properties":{"readyReplicas":{"type":"integer"}}}}}}}]}}`

// benchCR is an App called name, about 600 bytes of JSON.
func benchCR(name string) map[string]any {
	return map[string]any{"apiVersion": benchGroup + "/v1", "kind": "App", "metadata": map[string]any{"name": name, "labels": map[string]any{"app": "bench"}},
		"spec": map[string]any{
			"image": "registry.example.com/team/app:1.2.3", "replicas": 3, "minReplicas": 1,
			"ports": []any{map[string]any{"name": "http", "containerPort": 8080}, map[string]any{"name": "metrics", "containerPort": 9090}},
			"env": []any{
				map[string]any{"name": "LOG_LEVEL", "value": "info"}, map[string]any{"name": "MODE", "value": "production"},
				map[string]any{"name": "REGION", "value": "eu-west-1"},
			},
			"resources": map[string]any{
				"limits":   map[string]any{"cpu": "500m", "memory": "256Mi"},
				"requests": map[string]any{"cpu": 1, "memory": "128Mi"},
			},
		}}
}

// benchConfigMap is a ConfigMap called name of about the size of benchCR.
func benchConfigMap(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "labels": map[string]any{"app": "bench"}},
		"data": map[string]any{
			"image": "registry.example.com/team/app:1.2.3", "replicas": "3", "ports": "http=8080,metrics=9090",
			"LOG_LEVEL": "info", "MODE": "production", "REGION": "eu-west-1",
			"limits": "cpu=500m,memory=256Mi", "requests": "cpu=1,memory=128Mi",
		}}
}

// benchServe starts a 1-node store and the API over it, behind an
// httptest server, until b ends, and waits until it serves the App
// custom resource.
func benchServe(b *testing.B) *testServer {
	b.Helper()
	c := storetest.NewCluster(b, 1)
	srv := api.NewServer(c.Nodes[c.WaitForLeader()].Store, api.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); srv.Run(ctx) }()
	hs := httptest.NewServer(srv)
	b.Cleanup(func() { cancel(); hs.CloseClientConnections(); hs.Close(); <-done })
	s := &testServer{URL: hs.URL, inflight: &atomic.Int64{}}
	waitFor(b, "namespace default", func() bool {
		return s.do(b, http.MethodGet, "/api/v1/namespaces/default", nil).Code == http.StatusOK
	})
	s.do(b, http.MethodPost, crdsPath, benchCRDJSON).wantCode(b, http.StatusCreated)
	waitFor(b, "serving apps", func() bool { return s.do(b, http.MethodGet, benchCRs, nil).Code == http.StatusOK })
	return s
}

// benchSeq numbers the objects the benchmarks create, so that names stay
// unique over the runs of a benchmark with growing b.N.
var benchSeq atomic.Int64

// benchReportOps reports the operations per second of b's timed loop.
func benchReportOps(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "ops/s")
	}
}

// benchKind is a kind the HTTP benchmarks compare: its collection and
// its objects.
type benchKind struct {
	name, path string
	body       func(string) map[string]any
}

var benchKinds = []benchKind{
	{"ConfigMap", benchCMs, benchConfigMap},
	{"CustomResource", benchCRs, benchCR},
}

// benchBodies returns n request bodies of k, with new names.
func benchBodies(b *testing.B, k benchKind, n int) [][]byte {
	b.Helper()
	out := make([][]byte, n)
	for i := range out {
		data, err := json.Marshal(k.body(fmt.Sprintf("create-%d", benchSeq.Add(1))))
		if err != nil {
			b.Fatal(err)
		}
		out[i] = data
	}
	return out
}

// BenchmarkHTTPCreate POSTs new objects one after the other: the latency
// of a create, the raft commit included.
func BenchmarkHTTPCreate(b *testing.B) {
	s := benchServe(b)
	for _, k := range benchKinds {
		b.Run(k.name, func(b *testing.B) {
			bodies := benchBodies(b, k, b.N)
			b.ResetTimer()
			for i := range b.N {
				s.do(b, http.MethodPost, k.path, bodies[i]).wantCode(b, http.StatusCreated)
			}
			benchReportOps(b)
		})
	}
}

// BenchmarkHTTPCreateParallel POSTs new objects from 8 clients per CPU:
// raft batches their commits, so the server's CPU (decoding, validation,
// managedFields, encoding) bounds the throughput.
func BenchmarkHTTPCreateParallel(b *testing.B) {
	s := benchServe(b)
	for _, k := range benchKinds {
		b.Run(k.name, func(b *testing.B) {
			bodies := benchBodies(b, k, b.N)
			var next atomic.Int64
			// Enough idle connections for every client: no new connection per request.
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			defer client.CloseIdleConnections()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := benchPost(client, s.URL+k.path, bodies[next.Add(1)-1]); err != nil {
						b.Error(err)
						return
					}
				}
			})
			benchReportOps(b)
		})
	}
}

// benchPost creates the object of body at url, safe for concurrent use.
func benchPost(client *http.Client, url string, body []byte) error {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST %s: status %d: %s", url, resp.StatusCode, truncate(data))
	}
	return nil
}

// BenchmarkHTTPGet GETs one object over and over.
func BenchmarkHTTPGet(b *testing.B) {
	s := benchServe(b)
	for _, k := range benchKinds {
		s.do(b, http.MethodPost, k.path, k.body("get")).wantCode(b, http.StatusCreated)
		b.Run(k.name, func(b *testing.B) {
			for range b.N {
				s.do(b, http.MethodGet, k.path+"/get", nil).wantCode(b, http.StatusOK)
			}
			benchReportOps(b)
		})
	}
}

// BenchmarkCustomResourceValidate runs the strategy's Validate alone on a
// decoded, prepared object: the App's with and without its CEL rules
// (the difference is what the rules cost), and a ConfigMap's; and the
// decoding of the App's request body (pruning and defaulting included).
func BenchmarkCustomResourceValidate(b *testing.B) {
	withCEL := benchAppResource(b, false)
	withoutCEL := benchAppResource(b, true)
	cms := benchBuiltin(b, "ConfigMap")
	for _, c := range []struct {
		name string
		res  *resource.Resource
		body map[string]any
	}{
		{"CustomResource", withCEL, benchCR("v")},
		{"CustomResourceWithoutCEL", withoutCEL, benchCR("v")},
		{"ConfigMap", cms, benchConfigMap("v")},
	} {
		obj := benchDecode(b, c.res, c.body)
		st := c.res.GetStrategy()
		st.PrepareForCreate(obj)
		if errs := st.Validate(obj); len(errs) > 0 {
			b.Fatalf("%s: %v", c.name, errs.ToAggregate())
		}
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				_ = st.Validate(obj)
			}
			benchReportOps(b)
		})
	}
	b.Run("DecodeCustomResource", func(b *testing.B) {
		codecs := codec.NewCodecs(resource.NewRegistry(withCEL))
		data, _ := json.Marshal(benchCR("v"))
		for range b.N {
			if _, _, err := codecs.Decode(withCEL, codec.MediaJSON, data, metav1.FieldValidationStrict); err != nil {
				b.Fatal(err)
			}
		}
		benchReportOps(b)
	})
}

// benchAppResource is the App resource of benchCRDJSON, without its CEL
// rules when noCEL is set.
func benchAppResource(b *testing.B, noCEL bool) *resource.Resource {
	b.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal([]byte(benchCRDJSON), crd); err != nil {
		b.Fatal(err)
	}
	if noCEL {
		spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.XValidations = nil
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}
	crd.Status.AcceptedNames = crd.Spec.Names
	rs, err := apiextensions.Resources(crd, nil)
	if err != nil {
		b.Fatal(err)
	}
	return rs[0]
}

// benchBuiltin is the built-in resource of kind.
func benchBuiltin(b *testing.B, kind string) *resource.Resource {
	b.Helper()
	for _, r := range builtin.Resources() {
		if r.Kind == kind {
			return r
		}
	}
	b.Fatalf("no built-in %s", kind)
	return nil
}

// benchDecode decodes body as the API decodes a request body for res,
// with the namespace the registry sets.
func benchDecode(b *testing.B, res *resource.Resource, body map[string]any) runtime.Object {
	b.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	obj, _, err := codec.NewCodecs(resource.NewRegistry(res)).Decode(res, codec.MediaJSON, data, metav1.FieldValidationStrict)
	if err != nil {
		b.Fatal(err)
	}
	codec.Accessor(obj).SetNamespace("default")
	return obj
}
