package kubeapi

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// readyTimeout bounds one /readyz request.
const readyTimeout = 2 * time.Second

// Ready asks the server's /readyz once: nil on 200, otherwise an error
// with the status and the start of the body, or the request's error.
func (c *Client) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	code, body, err := c.Raw(ctx, http.MethodGet, "/readyz", nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("/readyz: %d %.300s", code, body)
	}
	return nil
}
