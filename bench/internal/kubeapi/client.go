package kubeapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Client talks to one node's API.
type Client struct {
	base string // https://host:port
	hc   *http.Client
}

// TLSFromKubeconfig returns the client TLS configuration of a kubeconfig
// file: its CA and client certificate.
func TLSFromKubeconfig(path string) (*tls.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, fmt.Errorf("kubeapi: kubeconfig %s: %w", path, err)
	}
	return tlsFor(cfg, "kubeconfig "+path)
}

// TLSFromFiles returns the client TLS configuration trusting the CA in
// the PEM file ca and presenting the certificate and key in cert and key.
func TLSFromFiles(ca, cert, key string) (*tls.Config, error) {
	return tlsFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAFile: ca, CertFile: cert, KeyFile: key}}, "certificate "+cert)
}

// tlsFor is client-go's TLS configuration of cfg; what names cfg in errors.
func tlsFor(cfg *rest.Config, what string) (*tls.Config, error) {
	tc, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeapi: %s: TLS: %w", what, err)
	}
	if tc == nil {
		return nil, fmt.Errorf("kubeapi: %s: no TLS settings", what)
	}
	return tc, nil
}

// NewTransport returns an HTTP/2-capable transport with tc, keeping
// enough idle connections for many concurrent clients.
func NewTransport(tc *tls.Config) *http.Transport {
	return &http.Transport{
		TLSClientConfig:     tc.Clone(),
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
}

// New returns a client of the API at base (https://host:port) over rt.
// The client sets no overall timeout: watches are long requests; every
// call carries its own deadline in its context.
func New(base string, rt http.RoundTripper) *Client {
	return &Client{base: base, hc: &http.Client{Transport: rt}}
}

// Base is the node's API URL.
func (c *Client) Base() string { return c.base }

// do sends a request with an optional JSON body and returns the response
// body when the status is want; any other status is an *Error.
func (c *Client) do(ctx context.Context, method, path string, body []byte, want int) ([]byte, error) {
	var out bytes.Buffer
	if err := c.doInto(ctx, method, path, body, want, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// doInto is do reading the response body into dst (see rawInto).
func (c *Client) doInto(ctx context.Context, method, path string, body []byte, want int, dst *bytes.Buffer) error {
	code, err := c.rawInto(ctx, method, path, body, dst)
	if err != nil {
		return err
	}
	if code != want {
		return newError(method, path, code, dst.Bytes())
	}
	return nil
}
