package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namesOf returns the sorted names of configmaps.
func namesOf(items []corev1.ConfigMap) []string {
	out := make([]string, len(items))
	for i, cm := range items {
		out[i] = cm.Name
	}
	slices.Sort(out)
	return out
}

// listNames lists path through s and returns the sorted item names of
// any list kind.
func listNames(t *testing.T, s *testServer, path string) []string {
	t.Helper()
	var l struct {
		Items []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	s.do(t, http.MethodGet, path, nil).wantCode(t, http.StatusOK).decode(t, &l)
	out := make([]string, len(l.Items))
	for i, it := range l.Items {
		out[i] = it.Metadata.Name
	}
	slices.Sort(out)
	return out
}

// TestListSelectors checks label and field selectors on lists.
func TestListSelectors(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	other := newNamespace(t, s)
	createCM(t, s, ns, configMap("a", map[string]string{"env": "prod", "tier": "web"}, nil))
	createCM(t, s, ns, configMap("b", map[string]string{"env": "dev"}, nil))
	createCM(t, s, ns, configMap("c", map[string]string{"tier": "db"}, nil))
	createCM(t, s, ns, configMap("d", map[string]string{"env": "prod"}, nil))
	createCM(t, s, other, configMap("a", map[string]string{"env": "prod"}, nil))

	cases := []struct {
		name string
		path string
		want []string
	}{
		{"LabelEquality", cmPath(ns) + query("labelSelector", "env=prod"), []string{"a", "d"}},
		{"LabelDoubleEquals", cmPath(ns) + query("labelSelector", "env==prod"), []string{"a", "d"}},
		{"LabelInequality", cmPath(ns) + query("labelSelector", "env!=prod"), []string{"b", "c"}},
		{"LabelIn", cmPath(ns) + query("labelSelector", "env in (prod,dev)"), []string{"a", "b", "d"}},
		{"LabelNotIn", cmPath(ns) + query("labelSelector", "env notin (prod)"), []string{"b", "c"}},
		{"LabelExists", cmPath(ns) + query("labelSelector", "env"), []string{"a", "b", "d"}},
		{"LabelDoesNotExist", cmPath(ns) + query("labelSelector", "!env"), []string{"c"}},
		{"LabelConjunction", cmPath(ns) + query("labelSelector", "env=prod,tier=web"), []string{"a"}},
		{"FieldName", cmPath(ns) + query("fieldSelector", "metadata.name=b"), []string{"b"}},
		{"FieldNameInequality", cmPath(ns) + query("fieldSelector", "metadata.name!=b"), []string{"a", "c", "d"}},
		{"FieldNamespaceAcrossNamespaces", "/api/v1/configmaps" + query("fieldSelector", "metadata.namespace="+other), []string{"a"}},
		{"FieldAndLabel", cmPath(ns) + query("fieldSelector", "metadata.name!=a", "labelSelector", "env=prod"), []string{"d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := listNames(t, s, c.path); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.path, got, c.want)
			}
		})
	}

	t.Run("SecretType", func(t *testing.T) {
		for name, typ := range map[string]corev1.SecretType{"opaque": corev1.SecretTypeOpaque, "custom": "example.com/custom"} {
			sec := corev1.Secret{TypeMeta: metav1.TypeMeta{Kind: "Secret", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name}, Type: typ}
			s.do(t, http.MethodPost, "/api/v1/namespaces/"+ns+"/secrets", sec).wantCode(t, http.StatusCreated)
		}
		path := "/api/v1/namespaces/" + ns + "/secrets"
		if got := listNames(t, s, path+query("fieldSelector", "type=example.com/custom")); !slices.Equal(got, []string{"custom"}) {
			t.Errorf("type=example.com/custom: %v", got)
		}
		if got := listNames(t, s, path+query("fieldSelector", "type!=example.com/custom")); !slices.Equal(got, []string{"opaque"}) {
			t.Errorf("type!=example.com/custom: %v", got)
		}
	})

	t.Run("EventInvolvedObjectName", func(t *testing.T) {
		for _, name := range []string{"pod-a", "pod-b"} {
			ev := corev1.Event{
				TypeMeta:       metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
				ObjectMeta:     metav1.ObjectMeta{Name: name + ".1"},
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: name},
				Reason:         "Test",
				Type:           corev1.EventTypeNormal,
			}
			s.do(t, http.MethodPost, "/api/v1/namespaces/"+ns+"/events", ev).wantCode(t, http.StatusCreated)
		}
		got := listNames(t, s, "/api/v1/namespaces/"+ns+"/events"+query("fieldSelector", "involvedObject.name=pod-a"))
		if !slices.Equal(got, []string{"pod-a.1"}) {
			t.Errorf("involvedObject.name=pod-a: %v", got)
		}
		got = listNames(t, s, "/api/v1/events"+query("fieldSelector", "involvedObject.name=pod-b,involvedObject.kind=Pod"))
		if !slices.Equal(got, []string{"pod-b.1"}) {
			t.Errorf("all namespaces, involvedObject.name=pod-b: %v", got)
		}
	})

	t.Run("UnsupportedFieldLabel", func(t *testing.T) {
		for _, path := range []string{
			cmPath(ns) + query("fieldSelector", "spec.nodeName=x"),
			"/api/v1/namespaces/" + ns + "/secrets" + query("fieldSelector", "data.x=y"),
			cmPath(ns) + query("fieldSelector", "type=Opaque"),
		} {
			st := s.do(t, http.MethodGet, path, nil).wantStatus(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
			if want := "field label not supported"; !strings.Contains(st.Message, want) {
				t.Errorf("%s: message %q lacks %q", path, st.Message, want)
			}
		}
	})

	t.Run("AllNamespaces", func(t *testing.T) {
		l := listCMs(t, s, "/api/v1/configmaps")
		got := map[string][]string{}
		for _, cm := range l.Items {
			got[cm.Namespace] = append(got[cm.Namespace], cm.Name)
		}
		if !slices.Equal(got[ns], []string{"a", "b", "c", "d"}) || !slices.Equal(got[other], []string{"a"}) {
			t.Errorf("all-namespaces list: %v", got)
		}
		if l.Kind != "ConfigMapList" || l.APIVersion != "v1" {
			t.Errorf("kind %q apiVersion %q", l.Kind, l.APIVersion)
		}
	})
}

// TestListRemainingItemCount checks that remainingItemCount is set only
// on a page with a continue token of a list without selectors.
func TestListRemainingItemCount(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	for _, name := range []string{"a", "b", "c", "d"} {
		createCM(t, s, ns, configMap(name, map[string]string{"app": "x"}, nil))
	}

	t.Run("Pages", func(t *testing.T) {
		l := listCMs(t, s, cmPath(ns)+query("limit", "1"))
		for want := int64(3); want > 0; want-- {
			if l.Continue == "" || l.RemainingItemCount == nil || *l.RemainingItemCount != want {
				t.Fatalf("page with %d left: continue %q remainingItemCount %v", want, l.Continue, ptrString(l.RemainingItemCount))
			}
			l = listCMs(t, s, cmPath(ns)+query("limit", "1", "continue", l.Continue))
		}
		if l.Continue != "" || l.RemainingItemCount != nil {
			t.Errorf("last page: continue %q remainingItemCount %v, want neither", l.Continue, ptrString(l.RemainingItemCount))
		}
	})

	t.Run("NoLimit", func(t *testing.T) {
		l := listCMs(t, s, cmPath(ns))
		if l.Continue != "" || l.RemainingItemCount != nil || len(l.Items) != 4 {
			t.Errorf("unpaged list: %d items continue %q remainingItemCount %v", len(l.Items), l.Continue, ptrString(l.RemainingItemCount))
		}
	})

	t.Run("LimitCoveringAll", func(t *testing.T) {
		l := listCMs(t, s, cmPath(ns)+query("limit", "10"))
		if l.Continue != "" || l.RemainingItemCount != nil || len(l.Items) != 4 {
			t.Errorf("one full page: %d items continue %q remainingItemCount %v", len(l.Items), l.Continue, ptrString(l.RemainingItemCount))
		}
	})

	for name, q := range map[string]string{
		"LabelSelector": query("limit", "1", "labelSelector", "app=x"),
		"FieldSelector": query("limit", "1", "fieldSelector", "metadata.name!=zz"),
	} {
		t.Run(name, func(t *testing.T) {
			l := listCMs(t, s, cmPath(ns)+q)
			if l.Continue == "" {
				t.Fatalf("limit 1 with a selector matching 4: no continue token")
			}
			if l.RemainingItemCount != nil {
				t.Errorf("remainingItemCount %d with a selector, want none", *l.RemainingItemCount)
			}
		})
	}
}

// ptrString formats an optional count.
func ptrString(p *int64) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

// TestListKinds checks the kind and apiVersion of each resource's list.
func TestListKinds(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, 1)
	s := tc.Leader
	ns := newNamespace(t, s)
	lease := coordinationv1.Lease{TypeMeta: metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"}, ObjectMeta: metav1.ObjectMeta{Name: "l"}}
	s.do(t, http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/"+ns+"/leases", lease).wantCode(t, http.StatusCreated)
	createCM(t, s, ns, configMap("c", nil, nil))

	cases := []struct{ path, kind, apiVersion string }{
		{"/api/v1/namespaces", "NamespaceList", "v1"},
		{cmPath(ns), "ConfigMapList", "v1"},
		{"/api/v1/configmaps", "ConfigMapList", "v1"},
		{"/api/v1/namespaces/" + ns + "/secrets", "SecretList", "v1"},
		{"/api/v1/namespaces/" + ns + "/serviceaccounts", "ServiceAccountList", "v1"},
		{"/api/v1/namespaces/" + ns + "/events", "EventList", "v1"},
		{"/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases", "LeaseList", "coordination.k8s.io/v1"},
		{"/apis/coordination.k8s.io/v1/leases", "LeaseList", "coordination.k8s.io/v1"},
	}
	for _, c := range cases {
		t.Run(c.kind+c.path, func(t *testing.T) {
			var l metav1.List
			s.do(t, http.MethodGet, c.path, nil).wantCode(t, http.StatusOK).decode(t, &l)
			if l.Kind != c.kind || l.APIVersion != c.apiVersion {
				t.Errorf("%s: kind %q apiVersion %q, want %s %s", c.path, l.Kind, l.APIVersion, c.kind, c.apiVersion)
			}
			if rvOf(t, l.ResourceVersion) == 0 {
				t.Errorf("%s: list resourceVersion %q", c.path, l.ResourceVersion)
			}
			if l.Items == nil {
				t.Errorf("%s: items missing or null, want a list", c.path)
			}
		})
	}
}
