package kubeapi

import (
	"context"
	"encoding/json"
	"net/http"
)

// CreateNamespace creates namespace name; one that exists is no error.
func (c *Client) CreateNamespace(ctx context.Context, name string) error {
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]string{"name": name}})
	_, err := c.do(ctx, http.MethodPost, "/api/v1/namespaces", body, http.StatusCreated)
	if IsAlreadyExists(err) {
		return nil
	}
	return err
}
