package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// nsSeq numbers the namespaces the tests create, keeping names unique.
var nsSeq atomic.Uint64

// notDNS matches the runs of characters a namespace name cannot hold.
var notDNS = regexp.MustCompile(`[^a-z0-9]+`)

// newNamespace creates a namespace named after the test through s and
// returns its name.
func newNamespace(t testing.TB, s *testServer) string {
	t.Helper()
	base := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	suffix := fmt.Sprintf("-%d", nsSeq.Add(1))
	if len(base) > 40 {
		base = strings.Trim(base[len(base)-40:], "-")
	}
	name := base + suffix
	ns := corev1.Namespace{TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name}}
	s.do(t, http.MethodPost, "/api/v1/namespaces", ns).wantCode(t, http.StatusCreated)
	return name
}

// configMap returns a ConfigMap named name with the given labels and data.
func configMap(name string, labels map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Data:       data,
	}
}

// cmPath returns the path of the configmaps of ns, or of one of them when
// name is given.
func cmPath(ns string, name ...string) string {
	p := "/api/v1/namespaces/" + ns + "/configmaps"
	if len(name) > 0 {
		p += "/" + name[0]
	}
	return p
}

// createCM creates a configmap in ns through s and returns it as stored.
func createCM(t testing.TB, s *testServer, ns string, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	var out corev1.ConfigMap
	s.do(t, http.MethodPost, cmPath(ns), cm).wantCode(t, http.StatusCreated).decode(t, &out)
	return &out
}

// updateCM replaces a configmap through s and returns it as stored.
func updateCM(t testing.TB, s *testServer, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	var out corev1.ConfigMap
	s.do(t, http.MethodPut, cmPath(cm.Namespace, cm.Name), cm).wantCode(t, http.StatusOK).decode(t, &out)
	return &out
}

// deleteCM deletes a configmap through s.
func deleteCM(t testing.TB, s *testServer, ns, name string) {
	t.Helper()
	s.do(t, http.MethodDelete, cmPath(ns, name), nil).wantCode(t, http.StatusOK)
}

// rvOf parses a resourceVersion.
func rvOf(t testing.TB, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q is not a number: %v", rv, err)
	}
	return n
}

// query builds a query string from name/value pairs.
func query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// cmList is a decoded ConfigMapList.
type cmList = corev1.ConfigMapList

// listCMs lists configmaps at path+query through s, expecting 200.
func listCMs(t testing.TB, s *testServer, path string) *cmList {
	t.Helper()
	var l cmList
	s.do(t, http.MethodGet, path, nil).wantCode(t, http.StatusOK).decode(t, &l)
	return &l
}

// itemState is a configmap's name, resourceVersion and data, flattened
// for comparison.
type itemState string

// stateOf returns the sorted item states of configmaps.
func stateOf(items []corev1.ConfigMap) []itemState {
	out := make([]itemState, len(items))
	for i, cm := range items {
		out[i] = cmState(&cm)
	}
	slices.Sort(out)
	return out
}

// cmState flattens one configmap.
func cmState(cm *corev1.ConfigMap) itemState {
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%s{", cm.Name, cm.ResourceVersion)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s;", k, cm.Data[k])
	}
	b.WriteString("}")
	return itemState(b.String())
}

// states returns the sorted states of the given configmaps.
func states(cms ...*corev1.ConfigMap) []itemState {
	out := make([]itemState, len(cms))
	for i, cm := range cms {
		out[i] = cmState(cm)
	}
	slices.Sort(out)
	return out
}
