package nodes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Create posts obj to path on node name as the harness's administrator
// (its client certificate): nil when the node created it or it exists
// already (201, 409).
func (c *Cluster) Create(ctx context.Context, name, path string, obj any) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, n.API+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusConflict {
		return fmt.Errorf("nodes: POST %s%s: HTTP %d", n.API, path, resp.StatusCode)
	}
	return nil
}
