package registry_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/raftapi/raftapi/api/registry"
)

// list lists namespace ns and fails the test on an error.
func list(t *testing.T, s *registry.Store, ns string, opts registry.ListOptions) *registry.ListResult {
	t.Helper()
	l, err := s.List(testContext(t), ns, opts)
	if err != nil {
		t.Fatalf("list %+v: %v", opts, err)
	}
	return l
}

func TestListSelectors(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	f.namespace(t, "other")
	createConfigMap(t, s, withLabels(configMap("a"), "app", "x"))
	createConfigMap(t, s, withLabels(configMap("b"), "app", "y"))
	createConfigMap(t, s, withLabels(configMap("c"), "app", "x", "tier", "db"))
	if _, err := s.Create(testContext(t), "other", withLabels(configMap("d"), "app", "x"), registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ns     string
		labels string
		fields string
		want   []string
	}{
		{"everything in default", metav1.NamespaceDefault, "", "", []string{"a", "b", "c"}},
		{"label equality", metav1.NamespaceDefault, "app=x", "", []string{"a", "c"}},
		{"label inequality", metav1.NamespaceDefault, "app!=x", "", []string{"b"}},
		{"label existence", metav1.NamespaceDefault, "tier", "", []string{"c"}},
		{"label set", metav1.NamespaceDefault, "app in (y),!tier", "", []string{"b"}},
		{"field name", metav1.NamespaceDefault, "", "metadata.name=b", []string{"b"}},
		{"labels and fields", metav1.NamespaceDefault, "app=x", "metadata.name!=a", []string{"c"}},
		{"all namespaces by label", "", "app=x", "", []string{"a", "c", "d"}},
		{"all namespaces by field namespace", "", "", "metadata.namespace=other", []string{"d"}},
		{"nothing matches", metav1.NamespaceDefault, "app=z", "", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, err := labels.Parse(tt.labels)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := fields.ParseSelector(tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			l := list(t, s, tt.ns, registry.ListOptions{LabelSelector: ls, FieldSelector: fs})
			if got := names(t, l.Items); !slices.Equal(got, tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
			if l.Revision != f.storage.Revision() {
				t.Errorf("list at %d, want the current revision %d", l.Revision, f.storage.Revision())
			}
		})
	}
}

func TestListPaging(t *testing.T) {
	s := newFixture(t).configMaps(t)
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		createConfigMap(t, s, configMap(n, "k", "v1"))
	}
	first := list(t, s, metav1.NamespaceDefault, registry.ListOptions{Limit: 2})
	if got := names(t, first.Items); !slices.Equal(got, []string{"a", "b"}) || first.Continue == "" {
		t.Fatalf("first page %v, continue %q; want [a b] and a token", got, first.Continue)
	}

	// Changes after the first page are not seen by the next ones: every
	// page is served at the first page's revision.
	createConfigMap(t, s, configMap("bb"))
	c := getConfigMap(t, s, "c")
	c.Data["k"] = "v2"
	if _, err := update(t, s, c, registry.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	second := list(t, s, metav1.NamespaceDefault, registry.ListOptions{Limit: 2, Continue: first.Continue})
	if got := names(t, second.Items); !slices.Equal(got, []string{"c", "d"}) || second.Continue == "" {
		t.Fatalf("second page %v, continue %q; want [c d] and a token", got, second.Continue)
	}
	if got := decode[corev1.ConfigMap](t, second.Items[0].Data); got.Data["k"] != "v1" {
		t.Errorf("second page shows c as %v, want it as of the first page (v1)", got.Data)
	}
	last := list(t, s, metav1.NamespaceDefault, registry.ListOptions{Limit: 2, Continue: second.Continue})
	if got := names(t, last.Items); !slices.Equal(got, []string{"e"}) || last.Continue != "" {
		t.Fatalf("last page %v, continue %q; want [e] and no token", got, last.Continue)
	}
	for i, p := range []*registry.ListResult{second, last} {
		if p.Revision != first.Revision {
			t.Errorf("page %d at revision %d, want the first page's %d", i+2, p.Revision, first.Revision)
		}
	}
}

func TestListOptionsInvalid(t *testing.T) {
	yes := true
	tests := []struct {
		name   string
		opts   registry.ListOptions
		code   int32
		reason metav1.StatusReason
		field  string // for a 422: the field of the cause
	}{
		{"Exact without resourceVersion", registry.ListOptions{ResourceVersionMatch: "Exact"},
			422, metav1.StatusReasonInvalid, "resourceVersionMatch"},
		{"NotOlderThan without resourceVersion", registry.ListOptions{ResourceVersionMatch: "NotOlderThan"},
			422, metav1.StatusReasonInvalid, "resourceVersionMatch"},
		{"Exact at resourceVersion 0", registry.ListOptions{ResourceVersion: "0", ResourceVersionMatch: "Exact"},
			422, metav1.StatusReasonInvalid, "resourceVersionMatch"},
		{"unknown resourceVersionMatch", registry.ListOptions{ResourceVersion: "1", ResourceVersionMatch: "Newest"},
			422, metav1.StatusReasonInvalid, "resourceVersionMatch"},
		{"resourceVersionMatch with continue", registry.ListOptions{ResourceVersion: "1", ResourceVersionMatch: "NotOlderThan", Continue: "token"},
			422, metav1.StatusReasonInvalid, "resourceVersionMatch"},
		{"sendInitialEvents on a list", registry.ListOptions{SendInitialEvents: &yes},
			422, metav1.StatusReasonInvalid, "sendInitialEvents"},
		{"resourceVersion with continue", registry.ListOptions{ResourceVersion: "1", Continue: "token"},
			400, metav1.StatusReasonBadRequest, ""},
		{"malformed continue", registry.ListOptions{Continue: "not a token"},
			400, metav1.StatusReasonBadRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFixture(t).configMaps(t)
			createConfigMap(t, s, configMap("a"))
			_, err := s.List(testContext(t), metav1.NamespaceDefault, tt.opts)
			se := wantStatus(t, err, tt.code, tt.reason)
			if tt.field == "" {
				return
			}
			wantCause(t, se, metav1.CauseTypeFieldValueInvalid, tt.field)
			if d := se.ErrStatus.Details; d.Group != "meta.k8s.io" || d.Kind != "ListOptions" {
				t.Errorf("details %s/%s, want meta.k8s.io/ListOptions", d.Group, d.Kind)
			}
		})
	}
}

// history is the store after: a created (v1), c created, a updated (v2), b
// created, c deleted. It returns the revision of each step.
type history struct{ aCreated, cCreated, aUpdated, bCreated, cDeleted uint64 }

func writeHistory(t *testing.T, f *fixture, s *registry.Store) history {
	t.Helper()
	var h history
	a := createConfigMap(t, s, configMap("a", "k", "v1"))
	h.aCreated = rv(t, a)
	h.cCreated = rv(t, createConfigMap(t, s, configMap("c", "k", "v1")))
	a.Data["k"] = "v2"
	a, err := update(t, s, a, registry.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.aUpdated = rv(t, a)
	h.bCreated = rv(t, createConfigMap(t, s, configMap("b", "k", "v1")))
	if _, err := deleteConfigMap(t, s, "c", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.cDeleted = f.storage.Revision()
	return h
}

func TestListResourceVersion(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	h := writeHistory(t, f, s)
	str := func(n uint64) string { return strconv.FormatUint(n, 10) }
	tests := []struct {
		name    string
		opts    registry.ListOptions
		want    []string // name=value of k
		wantRev uint64
	}{
		{"unset: most recent", registry.ListOptions{}, []string{"a=v2", "b=v1"}, h.cDeleted},
		{"0: any", registry.ListOptions{ResourceVersion: "0"}, []string{"a=v2", "b=v1"}, h.cDeleted},
		{"Exact at a's creation", registry.ListOptions{ResourceVersion: str(h.aCreated), ResourceVersionMatch: "Exact"},
			[]string{"a=v1"}, h.aCreated},
		{"Exact before a's update", registry.ListOptions{ResourceVersion: str(h.cCreated), ResourceVersionMatch: "Exact"},
			[]string{"a=v1", "c=v1"}, h.cCreated},
		{"Exact before c's deletion", registry.ListOptions{ResourceVersion: str(h.bCreated), ResourceVersionMatch: "Exact"},
			[]string{"a=v2", "b=v1", "c=v1"}, h.bCreated},
		{"NotOlderThan an old revision", registry.ListOptions{ResourceVersion: str(h.aCreated), ResourceVersionMatch: "NotOlderThan"},
			[]string{"a=v2", "b=v1"}, h.cDeleted},
		{"no match, no limit: NotOlderThan", registry.ListOptions{ResourceVersion: str(h.aCreated)},
			[]string{"a=v2", "b=v1"}, h.cDeleted},
		{"no match with a limit: Exact", registry.ListOptions{ResourceVersion: str(h.cCreated), Limit: 10},
			[]string{"a=v1", "c=v1"}, h.cCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := list(t, s, metav1.NamespaceDefault, tt.opts)
			var got []string
			for _, o := range l.Items {
				cm := decode[corev1.ConfigMap](t, o.Data)
				got = append(got, fmt.Sprintf("%s=%s", cm.Name, cm.Data["k"]))
			}
			if !slices.Equal(got, tt.want) || l.Revision != tt.wantRev {
				t.Errorf("listed %v at %d, want %v at %d", got, l.Revision, tt.want, tt.wantRev)
			}
		})
	}
}

func TestListResourceVersionUnavailable(t *testing.T) {
	f := newFixture(t)
	s := f.configMaps(t)
	h := writeHistory(t, f, s)
	if err := f.storage.Compact(testContext(t), h.bCreated); err != nil {
		t.Fatal(err)
	}
	str := func(n uint64) string { return strconv.FormatUint(n, 10) }

	_, err := s.List(testContext(t), metav1.NamespaceDefault, registry.ListOptions{ResourceVersion: str(h.aCreated), ResourceVersionMatch: "Exact"})
	wantStatus(t, err, 410, metav1.StatusReasonExpired)

	_, err = s.List(testContext(t), metav1.NamespaceDefault, registry.ListOptions{ResourceVersion: str(h.cDeleted + 5), ResourceVersionMatch: "NotOlderThan"})
	se := wantStatus(t, err, 504, metav1.StatusReasonTimeout)
	wantCause(t, se, metav1.CauseTypeResourceVersionTooLarge, "")
}
