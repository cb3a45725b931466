package kubeapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// Raw sends a request with an optional JSON body to path and returns the
// status code and body, whatever the status: for the endpoints beside the
// Kubernetes API (/readyz, raftapi's admin paths).
func (c *Client) Raw(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("kubeapi: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json, */*")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("kubeapi: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("kubeapi: %s %s: read the body: %w", method, path, err)
	}
	return resp.StatusCode, out, nil
}
