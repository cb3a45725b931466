package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pathological CustomResourceDefinitions: each is refused with kube's
// error or accepted and served within a bound, never answered 500, and
// the node serves a ConfigMap afterwards. The messages are kube's, from
// k8s.io/apiextensions-apiserver v0.37.2:
// pkg/apis/apiextensions/validation (estimated costs, checked when the
// CRD is written) and pkg/apiserver/schema/cel (runtime costs, checked
// when a custom resource is written).

const (
	// pathoGroup is the API group of the pathological CRDs.
	pathoGroup = "patho.raftapi.io"
	// pathoProbe is the ConfigMap read after every case.
	pathoProbe = "/api/v1/namespaces/default/configmaps/patho-probe"
	// kube's estimated cost messages (getCostErrorMessage and its callers).
	pathoCostHint       = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
	pathoRuleCost       = "estimated rule cost exceeds budget by factor of "
	pathoTotalCost      = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of "
	pathoContributed    = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
	pathoCallCostPrefix = "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: "
	pathoBudget         = "validation failed due to running out of cost budget, no further validation rules will be run"
)

// pathoBound is how long one request may take. Under the race detector
// CEL runs about twenty times slower, and a rule that stops at the
// per-call cost limit takes seconds instead of a fraction of one.
func pathoBound() time.Duration {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return 120 * time.Second
			}
		}
	}
	return 20 * time.Second
}

// pathoDo sends one JSON request with a client timeout of pathoBound and
// fails t unless it is answered within it, and without a 500.
func pathoDo(t *testing.T, s *testServer, method, path string, body any) *response {
	t.Helper()
	data, err := encodeBody(body)
	if err != nil {
		t.Fatal(err)
	}
	bound := pathoBound()
	client := &http.Client{Timeout: bound}
	req, err := http.NewRequestWithContext(context.Background(), method, s.URL+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s (%d bytes): no answer within %v: %v", method, path, len(data), bound, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	elapsed := time.Since(start)
	t.Logf("%s %s (%d bytes): %d (%d bytes) in %v", method, path, len(data), resp.StatusCode, len(out), elapsed.Round(time.Millisecond))
	r := &response{Code: resp.StatusCode, Header: resp.Header, Body: out, what: method + " " + path}
	// No pathological input may make the server fail, except an object
	// over the stored-object limit, which kube-apiserver answers with
	// etcd's 500.
	if r.Code >= http.StatusInternalServerError && !bytes.Contains(out, []byte("etcdserver: request is too large")) {
		t.Fatalf("%s: status %d: %s", r.what, r.Code, truncate(r.Body))
	}
	return r
}

// pathoCRD is a namespaced CRD of pathoGroup named by plural, with one
// served version v1 whose openAPIV3Schema is schema.
func pathoCRD(plural string, schema map[string]any) map[string]any {
	kind := strings.ToUpper(plural[:1]) + strings.TrimSuffix(plural[1:], "s")
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + pathoGroup},
		"spec": map[string]any{
			"group": pathoGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": strings.TrimSuffix(plural, "s"), "kind": kind},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": schema},
			}},
		},
	}
}

// pathoCR is an object of the CRD pathoCRD(plural, ...) with spec.
func pathoCR(plural, name string, spec any) map[string]any {
	kind := strings.ToUpper(plural[:1]) + strings.TrimSuffix(plural[1:], "s")
	return map[string]any{"apiVersion": pathoGroup + "/v1", "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec}
}

// pathoCRPath is the collection of plural in namespace default.
func pathoCRPath(plural string) string {
	return "/apis/" + pathoGroup + "/v1/namespaces/default/" + plural
}

// pathoObjectSpec is an object schema of spec with props and rules.
func pathoObjectSpec(props map[string]any, rules ...string) map[string]any {
	spec := map[string]any{"type": "object", "properties": props}
	if len(rules) > 0 {
		var v []any
		for _, r := range rules {
			v = append(v, map[string]any{"rule": r})
		}
		spec["x-kubernetes-validations"] = v
	}
	return map[string]any{"type": "object", "properties": map[string]any{"spec": spec}}
}

// pathoAccept creates def and waits until the resource at path serves.
func pathoAccept(t *testing.T, s *testServer, def map[string]any, plural string) {
	t.Helper()
	pathoDo(t, s, http.MethodPost, crdsPath, def).wantCode(t, http.StatusCreated)
	waitFor(t, "serving "+plural, func() bool {
		return s.do(t, http.MethodGet, pathoCRPath(plural), nil).Code == http.StatusOK
	})
}

// pathoRefuse posts def and returns kube's 422 Status.
func pathoRefuse(t *testing.T, s *testServer, def map[string]any) metav1.Status {
	t.Helper()
	return pathoDo(t, s, http.MethodPost, crdsPath, def).wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
}

// pathoWantCause fails t unless st has a cause of type typ on field
// whose message contains msg.
func pathoWantCause(t *testing.T, st metav1.Status, typ metav1.CauseType, field, msg string) {
	t.Helper()
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			if c.Type == typ && c.Field == field && strings.Contains(c.Message, msg) {
				return
			}
		}
	}
	t.Errorf("Status %.500q has no cause %s on %s containing %q; causes: %.2000v", st.Message, typ, field, msg, st.Details)
}

// TestCRDPathological runs the cases on one node in turn; after each the
// node still serves a ConfigMap.
func TestCRDPathological(t *testing.T) {
	tc := newTestCluster(t, 1)
	s := tc.Leader
	pathoDo(t, s, http.MethodPost, "/api/v1/namespaces/default/configmaps", pathoConfigMap("patho-probe")).wantCode(t, http.StatusCreated)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *testServer)
	}{
		{"deep nesting", pathoDeepNesting},
		{"nesting past the JSON depth limit", pathoTooDeep},
		{"huge enum", pathoHugeEnum},
		{"estimated cost over the rule limit", pathoUnboundedRule},
		{"estimated cost over the schema limit", pathoCostlySchema},
		{"nested CEL expression", pathoNestedExpression},
		{"runtime cost over the per-call limit", pathoPerCallLimit},
		{"runtime cost over the budget", pathoRuntimeBudget},
		{"big definitions", pathoBigDefinition},
		{"definition over the body limit", pathoTooBig},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, s)
			pathoDo(t, s, http.MethodGet, pathoProbe, nil).wantCode(t, http.StatusOK)
		})
	}
}

// pathoConfigMap is a ConfigMap called name.
func pathoConfigMap(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": map[string]any{"k": "v"}}
}

// pathoDepth is how deep the deep-nesting case nests its schema.
const pathoDepth = 120

// pathoDeepNesting: a schema pathoDepth objects deep with a default and a
// CEL rule at the bottom is accepted (kube sets no depth limit); objects
// are defaulted and validated at the bottom, and the OpenAPI documents
// publish it.
func pathoDeepNesting(t *testing.T, s *testServer) {
	leaf := map[string]any{"type": "object", "properties": map[string]any{
		"v": map[string]any{"type": "string", "maxLength": 8, "default": "deep"},
	}, "x-kubernetes-validations": []any{map[string]any{"rule": "self.v != 'bad'", "message": "bad at the bottom"}}}
	schema := leaf
	for range pathoDepth {
		schema = map[string]any{"type": "object", "properties": map[string]any{"n": schema}}
	}
	pathoAccept(t, s, pathoCRD("deeps", map[string]any{"type": "object", "properties": map[string]any{"spec": schema}}), "deeps")

	nest := func(bottom map[string]any) map[string]any {
		obj := bottom
		for range pathoDepth {
			obj = map[string]any{"n": obj}
		}
		return obj
	}
	var got map[string]any
	pathoDo(t, s, http.MethodPost, pathoCRPath("deeps"), pathoCR("deeps", "ok", nest(map[string]any{}))).wantCode(t, http.StatusCreated).decode(t, &got)
	bottom := got["spec"]
	for range pathoDepth {
		bottom = bottom.(map[string]any)["n"]
	}
	if v := bottom.(map[string]any)["v"]; v != "deep" {
		t.Errorf("the bottom of the created object = %v, want v defaulted to deep", bottom)
	}
	st := pathoDo(t, s, http.MethodPost, pathoCRPath("deeps"), pathoCR("deeps", "bad", nest(map[string]any{"v": "bad"}))).
		wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	if !strings.Contains(st.Message, "bad at the bottom") {
		t.Errorf("message %q, want the rule at the bottom", st.Message)
	}
	pathoDo(t, s, http.MethodGet, "/openapi/v3/apis/"+pathoGroup+"/v1", nil).wantCode(t, http.StatusOK)
	pathoDo(t, s, http.MethodGet, "/openapi/v2", nil).wantCode(t, http.StatusOK)
}

// pathoTooDeep: a schema 6,000 objects deep is more than 10,000 JSON
// levels, the decoder's limit: refused with 400 before anything else.
func pathoTooDeep(t *testing.T, s *testServer) {
	schema := map[string]any{"type": "string"}
	for range 6000 {
		schema = map[string]any{"type": "object", "properties": map[string]any{"n": schema}}
	}
	st := pathoDo(t, s, http.MethodPost, crdsPath, pathoCRD("toodeeps", schema)).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	if !strings.Contains(st.Message, "exceeded max depth") {
		t.Errorf("message %q, want the decoder's max depth", st.Message)
	}
}

// pathoEnumSize is the size of the huge enum.
const pathoEnumSize = 50000

// pathoHugeEnum: a 50,000-value enum is accepted; a value in it is
// stored, one outside refused with kube's NotSupported cause.
func pathoHugeEnum(t *testing.T, s *testServer) {
	values := make([]any, pathoEnumSize)
	for i := range values {
		values[i] = fmt.Sprintf("v%05d", i)
	}
	pathoAccept(t, s, pathoCRD("enums", pathoObjectSpec(map[string]any{
		"color": map[string]any{"type": "string", "enum": values},
	}, "self.color != 'v00013'")), "enums")
	pathoDo(t, s, http.MethodPost, pathoCRPath("enums"), pathoCR("enums", "last", map[string]any{"color": "v49999"})).wantCode(t, http.StatusCreated)
	st := pathoDo(t, s, http.MethodPost, pathoCRPath("enums"), pathoCR("enums", "outside", map[string]any{"color": "red"})).
		wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueNotSupported, "spec.color")
	st = pathoDo(t, s, http.MethodPost, pathoCRPath("enums"), pathoCR("enums", "ruled", map[string]any{"color": "v00013"})).
		wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	wantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec")
	pathoDo(t, s, http.MethodGet, "/openapi/v3/apis/"+pathoGroup+"/v1", nil).wantCode(t, http.StatusOK)
}

// pathoUnboundedRule: a rule nesting all() over a list of strings with no
// maxItems and no maxLength is estimated far over the per-rule limit
// (and so over the schema's): refused with kube's three Forbidden causes.
func pathoUnboundedRule(t *testing.T, s *testServer) {
	st := pathoRefuse(t, s, pathoCRD("unboundeds", pathoObjectSpec(map[string]any{
		"items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}, "self.items.all(x, self.items.all(y, x.contains(y)))")))
	rule := "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	pathoWantCause(t, st, metav1.CauseTypeForbidden, rule, pathoRuleCost+"more than 100x "+pathoCostHint)
	pathoWantCause(t, st, metav1.CauseTypeForbidden, rule, pathoContributed)
	pathoWantCause(t, st, metav1.CauseTypeForbidden, "spec.validation.openAPIV3Schema", pathoTotalCost+"more than 100x "+pathoCostHint)
}

// pathoCostlySchema: rules each within the per-rule limit whose total is
// over the limit for the whole schema are refused on the total alone.
func pathoCostlySchema(t *testing.T, s *testServer) {
	var rules []string
	for k := range 16 {
		rules = append(rules, fmt.Sprintf("self.xs.all(x, self.xs.all(y, x != y + %d))", k+1000))
	}
	st := pathoRefuse(t, s, pathoCRD("costlies", pathoObjectSpec(map[string]any{
		"xs": map[string]any{"type": "array", "maxItems": 1200, "items": map[string]any{"type": "integer"}},
	}, rules...)))
	if strings.Contains(st.Message, pathoRuleCost) {
		t.Errorf("message %q reports a rule over the per-rule limit; each is within it", st.Message)
	}
	pathoWantCause(t, st, metav1.CauseTypeForbidden, "spec.validation.openAPIV3Schema", pathoTotalCost)
	pathoWantCause(t, st, metav1.CauseTypeForbidden, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule", pathoContributed)
}

// pathoNestedExpression: a rule nested 500 parentheses deep is refused
// by the CEL parser's recursion limit (250), as a compile error.
func pathoNestedExpression(t *testing.T, s *testServer) {
	rule := strings.Repeat("(", 500) + "self.n > 0" + strings.Repeat(")", 500)
	st := pathoRefuse(t, s, pathoCRD("parens", pathoObjectSpec(map[string]any{"n": map[string]any{"type": "integer"}}, rule)))
	pathoWantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule", "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250")
}

// pathoPerCallRule is estimated within the per-rule limit for 1000 items
// but costs more than the per-call limit (1,000,000) on 600.
const pathoPerCallRule = "self.xs.all(x, self.xs.all(y, x + y >= 0))"

// pathoPerCallLimit: a quadratic rule on a big list is stopped at kube's
// per-call cost limit and the write refused; on a small list it passes.
func pathoPerCallLimit(t *testing.T, s *testServer) {
	pathoAccept(t, s, pathoCRD("quadratics", pathoObjectSpec(map[string]any{
		"xs": map[string]any{"type": "array", "maxItems": 1000, "items": map[string]any{"type": "integer"}},
	}, pathoPerCallRule)), "quadratics")
	pathoDo(t, s, http.MethodPost, pathoCRPath("quadratics"), pathoCR("quadratics", "small", map[string]any{"xs": pathoInts(10)})).wantCode(t, http.StatusCreated)
	st := pathoDo(t, s, http.MethodPost, pathoCRPath("quadratics"), pathoCR("quadratics", "big", map[string]any{"xs": pathoInts(600)})).
		wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	pathoWantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec", pathoCallCostPrefix+pathoPerCallRule)
	pathoDo(t, s, http.MethodGet, pathoCRPath("quadratics")+"/big", nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// pathoBudgetRules is how many rules the runtime budget case has; each
// costs about 800,000 on a 2,000,000-character string, under the
// per-call limit, and together more than the budget of 10,000,000.
const pathoBudgetRules = 14

// pathoRuntimeBudget: rules each within the per-call limit exhaust kube's
// runtime cost budget of one object together; the write is refused.
func pathoRuntimeBudget(t *testing.T, s *testServer) {
	var rules []string
	for k := range pathoBudgetRules {
		rules = append(rules, fmt.Sprintf("!self.s.contains('%02da') && !self.s.contains('%02db') && !self.s.contains('%02dc') && !self.s.contains('%02dd')", k, k, k, k))
	}
	pathoAccept(t, s, pathoCRD("budgets", pathoObjectSpec(map[string]any{
		"s": map[string]any{"type": "string", "maxLength": 2000000},
	}, rules...)), "budgets")
	pathoDo(t, s, http.MethodPost, pathoCRPath("budgets"), pathoCR("budgets", "small", map[string]any{"s": "hello"})).wantCode(t, http.StatusCreated)
	st := pathoDo(t, s, http.MethodPost, pathoCRPath("budgets"), pathoCR("budgets", "big", map[string]any{"s": strings.Repeat("x", 2000000)})).
		wantStatus(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid)
	pathoWantCause(t, st, metav1.CauseTypeFieldValueInvalid, "spec", pathoBudget)
}

// pathoInts is the list 0..n-1.
func pathoInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// pathoBigDefinition: a CRD of about 1.1 MB (2,000 described
// properties), under the stored-object limit, is accepted, established
// and its resource served; reading it back gives it whole. One of about
// 3 MB, under the request body limit but over the stored-object limit,
// is refused as kube-apiserver refuses it when etcd does: a 500 with
// etcd's message, and nothing stored.
func pathoBigDefinition(t *testing.T, s *testServer) {
	def := pathoWideCRD("bigs", 2000, 500)
	size := pathoSize(t, def)
	if size < 1000000 || size > 1400000 {
		t.Fatalf("the big CRD is %d bytes, want about 1.1 MB", size)
	}
	pathoAccept(t, s, def, "bigs")
	pathoDo(t, s, http.MethodPost, pathoCRPath("bigs"), pathoCR("bigs", "one", map[string]any{"p0001": "x", "p1999": "y"})).wantCode(t, http.StatusCreated)
	got := pathoDo(t, s, http.MethodGet, crdsPath+"/bigs."+pathoGroup, nil).wantCode(t, http.StatusOK)
	if len(got.Body) < size {
		t.Errorf("GET of the big CRD is %d bytes, less than the %d posted", len(got.Body), size)
	}
	pathoDo(t, s, http.MethodGet, "/openapi/v3/apis/"+pathoGroup+"/v1", nil).wantCode(t, http.StatusOK)

	huge := pathoWideCRD("huges", 2000, 1400)
	if size := pathoSize(t, huge); size < 2800000 || size > 3<<20 {
		t.Fatalf("the huge CRD is %d bytes, want about 3 MB and at most 3 MiB", size)
	}
	st := pathoDo(t, s, http.MethodPost, crdsPath, huge).wantStatus(t, http.StatusInternalServerError, metav1.StatusReasonUnknown)
	if st.Message != "etcdserver: request is too large" {
		t.Errorf("the huge CRD was refused with %q, want etcd's message", st.Message)
	}
	pathoDo(t, s, http.MethodGet, crdsPath+"/huges."+pathoGroup, nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// pathoTooBig: a CRD one byte over kube's 3 MiB body limit is refused
// with 413, before it is decoded.
func pathoTooBig(t *testing.T, s *testServer) {
	def := pathoWideCRD("toobigs", 2000, 1600)
	if pathoSize(t, def) <= 3<<20 {
		t.Fatalf("the too big CRD is %d bytes, want more than 3 MiB", pathoSize(t, def))
	}
	pathoDo(t, s, http.MethodPost, crdsPath, def).wantStatus(t, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge)
	pathoDo(t, s, http.MethodGet, crdsPath+"/toobigs."+pathoGroup, nil).wantStatus(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// pathoWideCRD is a CRD whose spec has n string properties, each with a
// description of descLen characters.
func pathoWideCRD(plural string, n, descLen int) map[string]any {
	props := make(map[string]any, n)
	for i := range n {
		desc := fmt.Sprintf("property %d: ", i) + strings.Repeat("lorem ipsum ", descLen/12)
		props[fmt.Sprintf("p%04d", i)] = map[string]any{"type": "string", "description": desc}
	}
	return pathoCRD(plural, pathoObjectSpec(props))
}

// pathoSize is the size of body as JSON.
func pathoSize(t *testing.T, body any) int {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}
