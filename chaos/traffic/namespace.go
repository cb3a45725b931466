package traffic

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
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

// definitionsPath is where CustomResourceDefinitions are served.
const definitionsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// CreateDefinition creates the CustomResourceDefinition of the custom
// resource res through node; one that exists already is fine (an earlier
// attempt whose answer was lost).
func (c *Client) CreateDefinition(ctx context.Context, node string, res Resource) error {
	r := c.do(ctx, http.MethodPost, c.Nodes[node]+definitionsPath, res.Definition())
	if r.err == nil && (r.code == http.StatusCreated || r.code == http.StatusOK || r.code == http.StatusConflict) {
		return nil
	}
	return fmt.Errorf("traffic: create %s: %s", res.DefinitionName(), r.describe())
}

// Serves reports, as nil, that node serves res in the client's namespace:
// a list of it answers 200.
func (c *Client) Serves(ctx context.Context, node string, res Resource) error {
	r := c.do(ctx, http.MethodGet, c.collectionURL(node, res, url.Values{"limit": {"1"}}), nil)
	if r.err == nil && r.code == http.StatusOK {
		return nil
	}
	return fmt.Errorf("traffic: %s does not serve %s: %s", node, res.Name, r.describe())
}
