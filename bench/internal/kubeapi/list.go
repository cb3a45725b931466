package kubeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// ListOptions select what a list returns, as the query parameters of the
// same names.
type ListOptions struct {
	// ResourceVersion and ResourceVersionMatch: "" is Most Recent, "0" is
	// Any, "X" with Match "Exact" is the state at revision X.
	ResourceVersion      string
	ResourceVersionMatch string
	Limit                int
	Continue             string
}

func (o ListOptions) query() string {
	q := url.Values{}
	if o.ResourceVersion != "" {
		q.Set("resourceVersion", o.ResourceVersion)
	}
	if o.ResourceVersionMatch != "" {
		q.Set("resourceVersionMatch", o.ResourceVersionMatch)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Continue != "" {
		q.Set("continue", o.Continue)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Page is a list response, undecoded but for its metadata.
type Page struct {
	Body            []byte
	ResourceVersion string
	Continue        string
}

// ListConfigMaps lists the ConfigMaps of namespace ns and returns the
// body as read. Its metadata, which the server writes before the items,
// is decoded; the items are not (see Items).
func (c *Client) ListConfigMaps(ctx context.Context, ns string, o ListOptions) (Page, error) {
	return c.listPath(ctx, configMapsPath(ns)+o.query())
}

// ListConfigMapsInto is ListConfigMaps reading the body into buf, which
// the returned page's Body then shares: it is valid until buf is next
// used. A caller timing many large lists keeps one buffer, so that what
// it times is the server's response rather than its own heap growing by
// the size of every list.
func (c *Client) ListConfigMapsInto(ctx context.Context, ns string, o ListOptions, buf *bytes.Buffer) (Page, error) {
	if err := c.doInto(ctx, http.MethodGet, configMapsPath(ns)+o.query(), nil, http.StatusOK, buf); err != nil {
		return Page{}, err
	}
	return pageOf(buf.Bytes())
}

// listPath lists the collection at path (with its query).
func (c *Client) listPath(ctx context.Context, path string) (Page, error) {
	out, err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK)
	if err != nil {
		return Page{}, err
	}
	return pageOf(out)
}

// pageOf is the page of a list body, its metadata decoded.
func pageOf(out []byte) (Page, error) {
	meta, err := listMeta(out)
	if err != nil {
		return Page{}, err
	}
	return Page{Body: out, ResourceVersion: meta.ResourceVersion, Continue: meta.Continue}, nil
}

type listMetadata struct {
	ResourceVersion string `json:"resourceVersion"`
	Continue        string `json:"continue"`
}

// listMeta decodes the list's metadata from the head of its body,
// without reading the items when the server encodes kind, apiVersion and
// metadata first (raftapi and kube-apiserver do), else from the whole body.
func listMeta(body []byte) (listMetadata, error) {
	var m listMetadata
	i := bytes.Index(body, []byte(`"metadata":`))
	if j := bytes.Index(body, []byte(`"items":`)); i < 0 || (j >= 0 && j < i) {
		var l struct {
			Metadata listMetadata `json:"metadata"`
		}
		if err := json.Unmarshal(body, &l); err != nil {
			return m, fmt.Errorf("kubeapi: decode a list: %w", err)
		}
		return l.Metadata, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body[i+len(`"metadata":`):]))
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("kubeapi: decode list metadata: %w", err)
	}
	return m, nil
}

// Items decodes the items of a list body and returns their number and
// the sum of their encoded sizes.
func (p Page) Items() (n int, size int64, err error) {
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(p.Body, &l); err != nil {
		return 0, 0, fmt.Errorf("kubeapi: decode list items: %w", err)
	}
	for _, it := range l.Items {
		size += int64(len(it))
	}
	return len(l.Items), size, nil
}

// Count counts the items of a list body without decoding them: every
// stored object has a uid, the list's own metadata has none.
func (p Page) Count() int {
	return bytes.Count(p.Body, []byte(`"uid":"`))
}
