package kubeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Objects names a namespaced custom resource in one of its versions: the
// collection /apis/Group/Version/namespaces/NS/Plural.
type Objects struct {
	Group, Version, Plural string
}

// path is the collection's path in namespace ns.
func (r Objects) path(ns string) string {
	return "/apis/" + r.Group + "/" + r.Version + "/namespaces/" + url.PathEscape(ns) + "/" + r.Plural
}

func (r Objects) objectPath(ns, name string) string { return r.path(ns) + "/" + url.PathEscape(name) }

// CreateObject creates obj (a JSON-encodable custom object) in namespace
// ns of r.
func (c *Client) CreateObject(ctx context.Context, r Objects, ns string, obj any) (Object, error) {
	out, err := c.do(ctx, http.MethodPost, r.path(ns), mustJSON(obj), http.StatusCreated)
	if err != nil {
		return Object{}, err
	}
	return objectOf(out)
}

// UpdateObject replaces object name of r, conditionally on the
// resourceVersion obj carries.
func (c *Client) UpdateObject(ctx context.Context, r Objects, ns, name string, obj any) (Object, error) {
	out, err := c.do(ctx, http.MethodPut, r.objectPath(ns, name), mustJSON(obj), http.StatusOK)
	if err != nil {
		return Object{}, err
	}
	return objectOf(out)
}

// DeleteObject deletes object name of r.
func (c *Client) DeleteObject(ctx context.Context, r Objects, ns, name string) error {
	_, err := c.do(ctx, http.MethodDelete, r.objectPath(ns, name), nil, http.StatusOK)
	return err
}

// GetObject reads object name of r at Most Recent and returns its body.
func (c *Client) GetObject(ctx context.Context, r Objects, ns, name string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, r.objectPath(ns, name), nil, http.StatusOK)
}

// ListObjects lists namespace ns of r, as ListConfigMaps does.
func (c *Client) ListObjects(ctx context.Context, r Objects, ns string, o ListOptions) (Page, error) {
	return c.listPath(ctx, r.path(ns)+o.query())
}

// WatchObjects opens a watch of namespace ns of r from resourceVersion
// rv, as WatchConfigMaps does.
func (c *Client) WatchObjects(ctx context.Context, r Objects, ns, rv string) (*Watch, error) {
	return c.watchPath(ctx, r.path(ns), rv)
}

// Apply creates obj (a JSON-encodable object with apiVersion and kind)
// at collection path, a cluster-scoped one such as
// /apis/apiextensions.k8s.io/v1/customresourcedefinitions; one that
// exists already is no error.
func (c *Client) Apply(ctx context.Context, path string, obj any) error {
	_, err := c.do(ctx, http.MethodPost, path, mustJSON(obj), http.StatusCreated)
	if IsAlreadyExists(err) {
		return nil
	}
	return err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("kubeapi: encode %T: %v", v, err)) // the callers' objects are plain data
	}
	return b
}
