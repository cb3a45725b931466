package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// probeName names the object that shows a node converts a custom
// resource between its versions; it is none of the workload's keys (see
// Resource.Owns), so lists and watches leave it out of the history.
const probeName = "probe"

// CreatePolicy creates the ConversionPolicy of res (Resource.Policy)
// through node, then the probe object whose value Converts reads back;
// either existing already is fine (an earlier attempt whose answer was
// lost).
func (c *Client) CreatePolicy(ctx context.Context, node string, res Resource) error {
	r := c.do(ctx, http.MethodPost, c.Nodes[node]+policiesPath, res.Policy())
	if r.err != nil || (r.code != http.StatusCreated && r.code != http.StatusOK && r.code != http.StatusConflict) {
		return fmt.Errorf("traffic: create the conversion policy of %s: %s", res.DefinitionName(), r.describe())
	}
	r = c.do(ctx, http.MethodPost, c.collectionURL(node, res, nil), newObject(res, c.Namespace, probeName, probeName, 0))
	if r.err != nil || (r.code != http.StatusCreated && r.code != http.StatusOK && r.code != http.StatusConflict) {
		return fmt.Errorf("traffic: create the probe %s: %s", res.Name, r.describe())
	}
	return nil
}

// policiesPath is where ConversionPolicies are served.
const policiesPath = "/apis/raftapi.io/v1/conversionpolicies"

// Converts reports, as nil, that node serves res in every version with
// the value of an object in each version's field: the probe object,
// written through the storage version, reads back through each.
func (c *Client) Converts(ctx context.Context, node string, res Resource) error {
	for _, v := range res.Versions {
		in := res.In(v.Name)
		r := c.do(ctx, http.MethodGet, c.objectURL(node, in, probeName), nil)
		if r.err != nil || r.code != http.StatusOK {
			return fmt.Errorf("traffic: %s does not serve %s in %s: %s", node, res.Name, v.Name, r.describe())
		}
		var o object
		if err := json.Unmarshal(r.body, &o); err != nil {
			return fmt.Errorf("traffic: %s: %s in %s: %w", node, res.Name, v.Name, err)
		}
		if got := o.value(in); got != probeName {
			return fmt.Errorf("traffic: %s serves %s in %s with spec.%s %q, want %q: %s", node, res.Name, v.Name, v.ValueField, got, probeName, r.body)
		}
	}
	return nil
}
