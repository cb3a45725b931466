package traffic

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
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

// ClientConfig says which nodes a Client talks to and how.
type ClientConfig struct {
	// Nodes maps a node name to the base URL of its API
	// (https://host:port).
	Nodes map[string]string
	// Namespace holds the registers.
	Namespace string
	// Timeout bounds one request.
	Timeout time.Duration
	// BearerToken, when set, authenticates every request.
	BearerToken string
	// TLS verifies the nodes' serving certificates and presents the
	// client's certificate; nil for plain http:// (the tests' fakes).
	TLS *tls.Config
}

// connectTimeout bounds each step of making a connection: the TCP dial,
// then the TLS handshake. A request that never had a connection was
// never sent (outcome).
const connectTimeout = 2 * time.Second

// NewClient returns a client for cfg.Namespace on cfg.Nodes.
func NewClient(cfg ClientConfig) *Client {
	// HTTP/1.1 only: one request per connection at a time, as the
	// harness always had, and the transport reports every connection it
	// hands a request (httptrace.GotConn), which outcome relies on.
	var h1 http.Protocols
	h1.SetHTTP1(true)
	tr := &http.Transport{MaxIdleConnsPerHost: 32, DialContext: (&net.Dialer{Timeout: connectTimeout}).DialContext,
		TLSClientConfig: cfg.TLS, TLSHandshakeTimeout: connectTimeout, Protocols: &h1}
	var rt http.RoundTripper = tr
	if cfg.BearerToken != "" {
		rt = bearer{token: cfg.BearerToken, next: tr}
	}
	return &Client{Nodes: cfg.Nodes, Namespace: cfg.Namespace, Timeout: cfg.Timeout, http: &http.Client{Transport: rt}}
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// reply is an HTTP answer: the status code and body, or the error that
// prevented one and whether the request was sent.
type reply struct {
	code int
	body []byte
	err  error
	// unsent says that err came before the request had a connection (a
	// refused or timed-out dial, a failed or timed-out TLS handshake, the
	// deadline while waiting for either): not a byte of it was written.
	unsent bool
}

// connTrace follows a request's attempts to get a connection. The
// transport asks for one per attempt (GetConn) and hands it over
// (GotConn) once the TCP dial and, for https, the TLS handshake have
// succeeded; before that nothing of the attempt is written. It makes a
// second attempt at a request that is not idempotent only when nothing of
// the first was written, so a request whose last attempt never had a
// connection was never sent. (A GET may be sent again after a lost
// answer; reads do not take their outcome from unsent.)
type connTrace struct{ connected atomic.Bool }

func (t *connTrace) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn: func(string) { t.connected.Store(false) },
		GotConn: func(httptrace.GotConnInfo) { t.connected.Store(true) },
	}
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
			return reply{err: err, unsent: true}
		}
		rd = bytes.NewReader(b)
	}
	var conn connTrace
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, conn.trace()), method, u, rd)
	if err != nil {
		return reply{err: err, unsent: true}
	}
	req.Header.Set("Content-Type", ct)
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{err: err, unsent: !conn.connected.Load()}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{code: resp.StatusCode, body: b, err: err}
}

// outcome classifies a reply to a request that changes state: a 2xx is
// ok; a refusal the server gives before doing anything (4xx, 503
// Unavailable, which raftapi sends only when nothing was proposed) or a
// request never sent (no connection: the dial or the TLS handshake
// failed or timed out) has failed; anything else (other 5xx such as 504
// with an unknown outcome, timeouts and lost connections once connected,
// TLS alerts after the handshake) is unknown.
func outcome(r reply) history.Outcome {
	switch {
	case r.err != nil && r.unsent:
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
