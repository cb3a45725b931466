package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api"
	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/raftstore"
	"github.com/raftapi/raftapi/raftstore/storetest"
)

// rbacNode is the API server of one node, called in process; a request
// with an X-Test-User header is made as that user (groups in
// X-Test-Groups, comma separated), as the serving chain would set it.
type rbacNode struct {
	srv *api.Server
}

func (n rbacNode) do(t *testing.T, method, path, as string, body any, hdrs ...string) *httptest.ResponseRecorder {
	t.Helper()
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	r := httptest.NewRequest(method, path, bytes.NewReader(data))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdrs); i += 2 {
		r.Header.Set(hdrs[i], hdrs[i+1])
	}
	if as != "" {
		u := &user.DefaultInfo{Name: as, Groups: []string{"system:authenticated"}}
		r = r.WithContext(request.WithUser(r.Context(), u))
	}
	w := httptest.NewRecorder()
	n.srv.ServeHTTP(w, r)
	return w
}

// newRBACCluster serves the API on every node of a 3-node cluster and
// returns the leader's first; it waits until every node's RBAC
// authorizer has synced.
func newRBACCluster(t *testing.T) []rbacNode {
	t.Helper()
	c := storetest.NewCluster(t, 3, func(c *raftstore.Config) { c.WaitTimeout = waitTimeout })
	leader := c.WaitForLeader()
	order := []int{leader}
	for i := range c.Nodes {
		if i != leader {
			order = append(order, i)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	var nodes []rbacNode
	for _, i := range order {
		srv := api.NewServer(c.Nodes[i].Store, api.Options{BookmarkInterval: bookmarkInterval})
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.Run(ctx)
		}()
		nodes = append(nodes, rbacNode{srv})
	}
	for _, n := range nodes {
		select {
		case <-n.srv.RBAC().Synced():
		case <-time.After(eventually):
			t.Fatal("RBAC authorizer not synced")
		}
	}
	waitFor(t, "namespace default", func() bool {
		return nodes[0].do(t, http.MethodGet, "/api/v1/namespaces/default", "", nil).Code == http.StatusOK
	})
	return nodes
}

// TestRBACBindingEnforcedOnEveryNode: a binding written on the leader is
// enforced by every node's authorizer as soon as the node applies it.
func TestRBACBindingEnforcedOnEveryNode(t *testing.T) {
	nodes := newRBACCluster(t)
	role := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "reader"},
		"rules": []any{map[string]any{"verbs": []string{"get"}, "apiGroups": []string{""}, "resources": []string{"configmaps"}}}}
	if w := nodes[0].do(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterroles", "", role); w.Code != http.StatusCreated {
		t.Fatalf("create role: %d %s", w.Code, w.Body)
	}
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "readers"},
		"roleRef":  map[string]any{"kind": "ClusterRole", "name": "reader"},
		"subjects": []any{map[string]any{"kind": "User", "name": "alice"}}}
	start := time.Now()
	if w := nodes[0].do(t, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "", binding); w.Code != http.StatusCreated {
		t.Fatalf("create binding: %d %s", w.Code, w.Body)
	} else if !strings.Contains(w.Body.String(), `"apiGroup":"rbac.authorization.k8s.io"`) {
		t.Errorf("roleRef and subject apiGroups not defaulted: %s", w.Body)
	}
	attrs := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "alice"}, Verb: "get", Resource: "configmaps", Namespace: "x", ResourceRequest: true}
	for i, n := range nodes {
		waitFor(t, "the binding on every node", func() bool {
			d, _, _ := n.srv.RBAC().Authorize(context.Background(), attrs)
			return d == authorizer.DecisionAllow
		})
		t.Logf("node %d enforces the binding %v after it was written", i, time.Since(start))
	}
}

func TestRBACOverHTTP(t *testing.T) {
	nodes := newRBACCluster(t)
	n := nodes[0]
	const base = "/apis/rbac.authorization.k8s.io/v1"
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": "b"},
		"roleRef": map[string]any{"kind": "ClusterRole", "name": "view"},
		"subjects": []any{map[string]any{"kind": "User", "name": "alice"}, map[string]any{"kind": "ServiceAccount", "name": "sa", "namespace": "default"},
			map[string]any{"kind": "Group", "name": "devs"}}}
	if w := n.do(t, http.MethodPost, base+"/namespaces/default/rolebindings", "", binding); w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}

	// kubectl get rolebindings -o wide.
	w := n.do(t, http.MethodGet, base+"/namespaces/default/rolebindings", "", nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table metav1.Table
	if err := json.Unmarshal(w.Body.Bytes(), &table); err != nil || len(table.Rows) != 1 {
		t.Fatalf("table %d %s", w.Code, w.Body)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "Name,Role,Age,Users,Groups,ServiceAccounts" {
		t.Errorf("columns %s", got)
	}
	cells := table.Rows[0].Cells
	if cells[1] != "ClusterRole/view" || cells[3] != "alice" || cells[4] != "devs" || cells[5] != "default/sa" {
		t.Errorf("cells %v", cells)
	}

	// roleRef is immutable.
	binding["roleRef"] = map[string]any{"kind": "ClusterRole", "name": "edit"}
	w = n.do(t, http.MethodPut, base+"/namespaces/default/rolebindings/b", "", binding)
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), "cannot change roleRef") {
		t.Errorf("changing roleRef: %d %s", w.Code, w.Body)
	}

	// Escalation: bob holds nothing.
	role := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": "grab"},
		"rules": []any{map[string]any{"verbs": []string{"get"}, "apiGroups": []string{""}, "resources": []string{"secrets"}}}}
	w = n.do(t, http.MethodPost, base+"/namespaces/default/roles", "bob", role)
	var st metav1.Status
	_ = json.Unmarshal(w.Body.Bytes(), &st)
	want := "roles.rbac.authorization.k8s.io \"grab\" is forbidden: user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}"
	if w.Code != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden || st.Message != want {
		t.Errorf("escalation: %d %q, want 403 %q", w.Code, st.Message, want)
	}
	if w := n.do(t, http.MethodPost, base+"/namespaces/default/roles", "", role); w.Code != http.StatusCreated {
		t.Errorf("the same role without a user (in-process): %d %s", w.Code, w.Body)
	}

	// kubectl get roles: NAME, CREATED AT.
	w = n.do(t, http.MethodGet, base+"/namespaces/default/roles", "", nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	table = metav1.Table{}
	if err := json.Unmarshal(w.Body.Bytes(), &table); err != nil || len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[1].Name != "Created At" {
		t.Errorf("roles table %s", w.Body)
	}
}
