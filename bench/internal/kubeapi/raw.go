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
	var out bytes.Buffer
	code, err := c.rawInto(ctx, method, path, body, &out)
	if err != nil {
		return code, nil, err
	}
	return code, out.Bytes(), nil
}

// rawInto is Raw reading the response body into dst, which it resets
// first: a caller that reads many large bodies keeps one buffer, grown
// once, instead of allocating (and, on a fresh heap, faulting in) a new
// one per response.
func (c *Client) rawInto(ctx context.Context, method, path string, body []byte, dst *bytes.Buffer) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, fmt.Errorf("kubeapi: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json, */*")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("kubeapi: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	dst.Reset()
	if _, err := dst.ReadFrom(resp.Body); err != nil {
		return resp.StatusCode, fmt.Errorf("kubeapi: %s %s: read the body: %w", method, path, err)
	}
	return resp.StatusCode, nil
}
