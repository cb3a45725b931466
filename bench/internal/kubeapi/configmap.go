package kubeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Object is what a write returns: the stored object's resourceVersion
// and its size as the server encoded it.
type Object struct {
	ResourceVersion string
	Bytes           int
}

// configMap is the body of a ConfigMap write: one data key holding value.
type configMap struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   objectMeta        `json:"metadata"`
	Data       map[string]string `json:"data"`
}

type objectMeta struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// DataKey is the data key a ConfigMap written here holds its value under.
const DataKey = "v"

func configMapBody(ns, name, rv, value string) []byte {
	b, err := json.Marshal(configMap{APIVersion: "v1", Kind: "ConfigMap",
		Metadata: objectMeta{Name: name, Namespace: ns, ResourceVersion: rv},
		Data:     map[string]string{DataKey: value}})
	if err != nil {
		panic(fmt.Sprintf("kubeapi: encode a ConfigMap: %v", err)) // strings always encode
	}
	return b
}

func configMapsPath(ns string) string {
	return "/api/v1/namespaces/" + url.PathEscape(ns) + "/configmaps"
}

func configMapPath(ns, name string) string {
	return configMapsPath(ns) + "/" + url.PathEscape(name)
}

// CreateConfigMap creates ConfigMap ns/name with value under DataKey.
func (c *Client) CreateConfigMap(ctx context.Context, ns, name, value string) (Object, error) {
	out, err := c.do(ctx, http.MethodPost, configMapsPath(ns), configMapBody(ns, name, "", value), http.StatusCreated)
	if err != nil {
		return Object{}, err
	}
	return objectOf(out)
}

// UpdateConfigMap replaces ConfigMap ns/name, conditionally on rv when
// rv is not empty (409 Conflict when it is stale).
func (c *Client) UpdateConfigMap(ctx context.Context, ns, name, rv, value string) (Object, error) {
	out, err := c.do(ctx, http.MethodPut, configMapPath(ns, name), configMapBody(ns, name, rv, value), http.StatusOK)
	if err != nil {
		return Object{}, err
	}
	return objectOf(out)
}

// DeleteConfigMap deletes ConfigMap ns/name.
func (c *Client) DeleteConfigMap(ctx context.Context, ns, name string) error {
	_, err := c.do(ctx, http.MethodDelete, configMapPath(ns, name), nil, http.StatusOK)
	return err
}

// GetConfigMap reads ConfigMap ns/name: a Most Recent read (a quorum
// read), or with anyVersion, resourceVersion=0 (Any: served from the node's own
// state).
func (c *Client) GetConfigMap(ctx context.Context, ns, name string, anyVersion bool) (Object, error) {
	path := configMapPath(ns, name)
	if anyVersion {
		path += "?resourceVersion=0"
	}
	out, err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK)
	if err != nil {
		return Object{}, err
	}
	return objectOf(out)
}

func objectOf(body []byte) (Object, error) {
	var o struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &o); err != nil {
		return Object{}, fmt.Errorf("kubeapi: decode an object: %w", err)
	}
	return Object{ResourceVersion: o.Metadata.ResourceVersion, Bytes: len(body)}, nil
}
