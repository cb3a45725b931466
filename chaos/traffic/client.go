package traffic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/raftapi/raftapi/chaos/history"
)

// Client speaks the API of the register resources (configmaps, a custom
// resource) of one namespace on any node.
type Client struct {
	// Nodes maps a node name to the base URL of its API.
	Nodes     map[string]string
	Namespace string
	// Timeout bounds one request; a write that runs out of it has an
	// unknown outcome.
	Timeout time.Duration
	http    *http.Client
}

// NewClient returns a client for namespace ns on the given nodes.
func NewClient(nodes map[string]string, ns string, timeout time.Duration) *Client {
	tr := &http.Transport{MaxIdleConnsPerHost: 32, DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext}
	return &Client{Nodes: nodes, Namespace: ns, Timeout: timeout, http: &http.Client{Transport: tr}}
}

// reply is an HTTP answer: the status code and body, or the error that
// prevented one.
type reply struct {
	code int
	body []byte
	err  error
}

func (c *Client) collectionURL(node string, res Resource, q url.Values) string {
	u := fmt.Sprintf("%s%s/namespaces/%s/%s", c.Nodes[node], res.path(), c.Namespace, res.Name)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

func (c *Client) objectURL(node string, res Resource, name string) string {
	return fmt.Sprintf("%s%s/namespaces/%s/%s/%s", c.Nodes[node], res.path(), c.Namespace, res.Name, name)
}

// The content types of request bodies.
const (
	jsonType       = "application/json"
	mergePatchType = "application/merge-patch+json"
)

// do sends one request with a JSON body within the client's timeout.
func (c *Client) do(ctx context.Context, method, u string, body any) reply {
	return c.send(ctx, method, u, jsonType, body)
}

// send sends one request with a body of content type ct within the
// client's timeout.
func (c *Client) send(ctx context.Context, method, u, ct string, body any) reply {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return reply{err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return reply{err: err}
	}
	req.Header.Set("Content-Type", ct)
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{code: resp.StatusCode, body: b, err: err}
}

// outcome classifies a reply to a request that changes state: a 2xx is
// ok; a refusal the server gives before doing anything (4xx, 503
// Unavailable, which raftapi sends only when nothing was proposed) or a
// connection never made has failed; anything else (other 5xx such as
// 504 with an unknown outcome, timeouts, lost connections) is unknown.
func outcome(r reply) history.Outcome {
	switch {
	case r.err != nil && isDialError(r.err):
		return history.Failed
	case r.err != nil:
		return history.Unknown
	case r.code/100 == 2:
		return history.OK
	case r.code/100 == 4 || r.code == http.StatusServiceUnavailable:
		return history.Failed
	}
	return history.Unknown
}

// unserved reports whether a reply is a 404 for the request's path rather
// than for an object: a Status without the name of an object (the object
// of a get, update, patch or delete; the namespace of a create or list),
// or no Status at all. A node answers so for a custom resource whose
// definition it has not applied.
func unserved(r reply) bool {
	if r.err != nil || r.code != http.StatusNotFound {
		return false
	}
	var st status
	return json.Unmarshal(r.body, &st) != nil || st.Details.Name == ""
}

// isDialError reports whether err happened before the request was sent.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// describe is a short account of a failed or unknown reply.
func (r reply) describe() string {
	if r.err != nil {
		return r.err.Error()
	}
	var st status
	if json.Unmarshal(r.body, &st) == nil && st.Message != "" {
		return fmt.Sprintf("%d %s: %s", r.code, st.Reason, st.Message)
	}
	return fmt.Sprintf("HTTP %d", r.code)
}
