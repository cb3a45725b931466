package convwebhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The HTTP side of a call follows the REST client kube-apiserver talks to
// webhooks with (k8s.io/client-go rest, configured by k8s.io/apiserver
// pkg/util/webhook), so that a failure reads the same.

// userAgent is the User-Agent kube-apiserver sends to webhooks.
const userAgent = "kube-apiserver-admission"

// maxErrorBodyBytes caps how much of an unexpected answer an error quotes.
const maxErrorBodyBytes = 2048

// endpointURL returns the URL a call posts to: the webhook's scheme, host
// and cleaned path, with the timeout as the REST client's ?timeout= query.
// clientConfig.url has no query or fragment (CRD validation refuses them).
func endpointURL(raw string, timeout time.Duration) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		//lint:ignore ST1005 kube-apiserver's message, capital and all
		return "", fmt.Errorf("Unparsable URL: %v", err)
	}
	out := url.URL{Scheme: u.Scheme, Host: u.Host, Path: path.Join("/", u.Path)}
	if timeout > 0 {
		out.RawQuery = url.Values{"timeout": {timeout.String()}}.Encode()
	}
	return out.String(), nil
}

// newHTTPClient returns the client of one webhook: HTTP/1.1 over TLS
// verified against caBundle (PEM; the system roots when it is empty or
// blank), each call bounded by timeout.
func newHTTPClient(caBundle []byte, timeout time.Duration) (*http.Client, error) {
	tlsConfig := &tls.Config{}
	if len(bytes.TrimSpace(caBundle)) > 0 {
		pool, err := rootCertPool(caBundle)
		if err != nil {
			return nil, fmt.Errorf("unable to load root certificates: %w", err)
		}
		tlsConfig.RootCAs = pool
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: transport, Timeout: timeout}, nil
}

// rootCertPool returns the certificates of caBundle, or why there are
// none.
func rootCertPool(caBundle []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if pool.AppendCertsFromPEM(caBundle) {
		return pool, nil
	}
	for rest := caBundle; len(rest) > 0; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return nil, errors.New("unable to parse bytes as PEM block")
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, fmt.Errorf("failed to parse certificate: %w", err)
		}
	}
	return nil, errors.New("no valid certificate authority data seen")
}

// post sends body to the webhook and returns the body of a 2xx answer.
// Any other answer is an error: the transport's, or the one the REST
// client makes of the status and body.
func (c *Converter) post(body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.client.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readAnswer(resp)
}

// readAnswer returns the body of resp if it is a non-empty 2xx answer.
func readAnswer(resp *http.Response) ([]byte, error) {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	contentType := resp.Header.Get("Content-Type")
	if contentType == "" {
		contentType = "application/json"
	}
	if _, _, err := mime.ParseMediaType(contentType); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		return nil, answerError(resp, data)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, contentType)
	}
	return data, nil
}

// answerError is the error of a non-2xx answer: the Status it carries if
// it is a failed Status, else kube's generic message for the status code,
// quoting a text body.
func answerError(resp *http.Response, body []byte) error {
	var st metav1.Status
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && (st.APIVersion == "" || st.APIVersion == "v1") && st.Status == metav1.StatusFailure {
		return &apierrors.StatusError{ErrStatus: st}
	}
	message := "unknown"
	if isText(resp) {
		message = strings.TrimSpace(string(body[:min(len(body), maxErrorBodyBytes)]))
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, 0, true)
}

// isText reports whether resp's body is text: it has no content type, or
// a text/* one.
func isText(resp *http.Response) bool {
	contentType := resp.Header.Get("Content-Type")
	if contentType == "" {
		return true
	}
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && strings.HasPrefix(media, "text/")
}
