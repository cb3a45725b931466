package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// outcome is what a client can know of a write.
type outcome int

const (
	acked   outcome = iota // committed
	failed                 // definitely not applied (4xx, 503, not sent)
	unknown                // may or may not have been applied
)

// client reaches every node the test started, as that node's admin (see
// nodeTransport).
var client = &http.Client{Transport: nodeTransport{}, Timeout: 15 * time.Second}

// configMap is the part of a ConfigMap the tests read and write.
type configMap struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   objectMeta        `json:"metadata"`
	Data       map[string]string `json:"data,omitempty"`
}

type objectMeta struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	UID             string `json:"uid,omitempty"`
}

func newConfigMap(name, value string) *configMap {
	return &configMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: objectMeta{Name: name}, Data: map[string]string{"v": value}}
}

func cmURL(addr, name string) string {
	u := "https://" + addr + "/api/v1/namespaces/default/configmaps"
	if name != "" {
		u += "/" + name
	}
	return u
}

// do sends a JSON request and decodes a 2xx answer into out.
func do(ctx context.Context, method, url string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(raw, out)
	}
	return resp.StatusCode, nil
}

// write classifies the result of a write request.
func write(ctx context.Context, method, url string, obj *configMap) (*configMap, outcome, error) {
	var out configMap
	code, err := do(ctx, method, url, obj, &out)
	switch {
	case err == nil:
		return &out, acked, nil
	case code == 0 && isRefused(err):
		return nil, failed, err
	case code == http.StatusServiceUnavailable || (code >= 400 && code < 500):
		return nil, failed, err
	}
	return nil, unknown, err
}

func get(ctx context.Context, addr, name, rv string) (*configMap, int, error) {
	url := cmURL(addr, name)
	if rv != "" {
		url += "?resourceVersion=" + rv
	}
	var out configMap
	code, err := do(ctx, http.MethodGet, url, nil, &out)
	return &out, code, err
}
