package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// The crd_versions_* tests work with the CRDs of testdata/crdversions:
// gadgets (three versions and their ConversionPolicy), meters (two
// versions and a policy, for storage migration) and things (two versions
// converted by a webhook the test serves).

// crdVersionsGroup is the group written in testdata/crdversions; each
// scenario moves the fixtures to a group of its own.
const crdVersionsGroup = "versions.e2e.raftapi.io"

// crdVersionsGroupOf returns the group of the scenario named name.
func crdVersionsGroupOf(name string) string { return name + "." + crdVersionsGroup }

// crdVersionsFixture returns testdata/crdversions/file, moved to group.
func crdVersionsFixture(t *testing.T, file, group string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crdversions", file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), crdVersionsGroup, group)
}

// crdVersionsObject parses a YAML manifest.
func crdVersionsObject(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatalf("manifest: %v\n%s", err, manifest)
	}
	return u
}

// crdVersionsKubectl returns the kubectl binary the tests drive: the
// v1.32 one, else the current one.
func crdVersionsKubectl(t *testing.T) string {
	t.Helper()
	for _, b := range kubectlBuilds() {
		if b.skip == "" {
			return b.path
		}
	}
	t.Skip("no kubectl: neither on PATH nor in RAFTAPI_KUBECTL or RAFTAPI_KUBECTL_CURRENT")
	return ""
}

// crdVersionsWaitServed waits until every node in addrs lists the
// resource in every version.
func crdVersionsWaitServed(t *testing.T, group, resource, ns string, versions []string, addrs ...string) {
	t.Helper()
	for _, addr := range addrs {
		dc := dynamicWithWarnings(t, addr, &warningLog{})
		for _, v := range versions {
			gvr := schema.GroupVersionResource{Group: group, Version: v, Resource: resource}
			pollUntil(t, 15*time.Second, fmt.Sprintf("%s to serve %s", addr, gvr), func() error {
				_, err := dc.Resource(gvr).Namespace(ns).List(callCtx(t), metav1.ListOptions{})
				return err
			})
		}
	}
}

// crdVersionsCRD returns the CRD named name as the node at addr has it.
func crdVersionsCRD(t *testing.T, addr, name string) (*unstructured.Unstructured, error) {
	t.Helper()
	return crdMustDynamic(t, addr).Resource(crdGVR).Get(callCtx(t), name, metav1.GetOptions{})
}

// canonicalJSON returns v as JSON with sorted keys, numbers as decoded
// from JSON or YAML compared alike (2, int64(2) and 2.0 all read "2").
func canonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// warningLog records the warnings a client-go client received.
type warningLog struct {
	mu   sync.Mutex
	seen []string
}

// HandleWarningHeader implements rest.WarningHandler.
func (l *warningLog) HandleWarningHeader(code int, _, text string) {
	if code != 299 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, text)
}

// since returns the warnings received after the first n.
func (l *warningLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen[n:]...)
}

// count returns how many warnings have been received.
func (l *warningLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// dynamicWithWarnings returns a dynamic client of the node at addr whose
// warnings go to log.
func dynamicWithWarnings(t *testing.T, addr string, log *warningLog) dynamic.Interface {
	t.Helper()
	cfg := restConfigFor(t, addr)
	cfg.WarningHandler = log
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc
}
