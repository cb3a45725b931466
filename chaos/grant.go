package chaos

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// clientRole is the ClusterRole the workload's group is bound to: every
// verb on every resource, granted by RBAC rather than by system:masters,
// so that every request of the run is authorized by the nodes' role
// bindings as they follow the log.
const clientRole = "raftapi-chaos"

// grantClient binds the workload's group to clientRole, through any node
// that takes it, and waits until every node authorizes the workload's
// token.
func (r *run) grantClient(ctx context.Context) error {
	role := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": clientRole},
		"rules":    []any{map[string]any{"apiGroups": []string{"*"}, "resources": []string{"*"}, "verbs": []string{"*"}}}}
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": clientRole},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": clientRole},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": clientGroup}}}
	const base = "/apis/rbac.authorization.k8s.io/v1/"
	if err := r.createAnywhere(ctx, base+"clusterroles", role); err != nil {
		return err
	}
	if err := r.createAnywhere(ctx, base+"clusterrolebindings", binding); err != nil {
		return err
	}
	return r.waitAuthorized(ctx)
}

// createAnywhere creates obj through the first node that takes it,
// retrying for up to a minute.
func (r *run) createAnywhere(ctx context.Context, path string, obj any) error {
	deadline := time.Now().Add(time.Minute)
	var err error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, n := range r.cl.Names() {
			if err = r.cl.Create(ctx, n, path, obj); err == nil {
				return nil
			}
		}
		sleepUntil(ctx, time.Now().Add(200*time.Millisecond))
	}
	return fmt.Errorf("chaos: grant the workload its role: %w", err)
}

// waitAuthorized waits until every node lets the workload's token read
// the default namespace.
func (r *run) waitAuthorized(ctx context.Context) error {
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: r.creds.clientTLS}, Timeout: 2 * time.Second}
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(time.Minute)
	for _, n := range r.cl.Nodes() {
		for {
			code, err := getWithToken(ctx, c, n.API+"/api/v1/namespaces/default", r.creds.clientToken)
			if err == nil && code == http.StatusOK {
				break
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				return fmt.Errorf("chaos: %s never authorized the workload's token (HTTP %d, %v)", n.Name, code, err)
			}
			sleepUntil(ctx, time.Now().Add(100*time.Millisecond))
		}
	}
	return nil
}

func getWithToken(ctx context.Context, c *http.Client, url, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
