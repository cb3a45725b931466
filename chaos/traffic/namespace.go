package traffic

import (
	"context"
	"fmt"
	"net/http"
)

// CreateNamespace creates the client's namespace through node; one that
// exists already is fine.
func (c *Client) CreateNamespace(ctx context.Context, node string) error {
	body := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]string{"name": c.Namespace}}
	r := c.do(ctx, http.MethodPost, c.Nodes[node]+"/api/v1/namespaces", body)
	if r.err == nil && (r.code == http.StatusCreated || r.code == http.StatusOK || r.code == http.StatusConflict) {
		return nil
	}
	return fmt.Errorf("traffic: %s", r.describe())
}
