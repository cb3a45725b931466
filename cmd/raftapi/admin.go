package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// adminClient talks to one node's HTTP API with an admin credential.
type adminClient struct {
	server string
	http   *http.Client
}

// adminTimeout bounds one admin request.
const adminTimeout = 60 * time.Second

// newAdminClient connects as the client flags say.
func newAdminClient(cf *clientFlags) (*adminClient, error) {
	server, hc, err := cf.client(adminTimeout)
	if err != nil {
		return nil, err
	}
	return &adminClient{server: server, http: hc}, nil
}

// do sends a request with an optional JSON body and decodes a 2xx answer
// into out (when not nil). Any other answer is an error carrying the
// server's message: a Kubernetes Status's message when it sent one.
func (c *adminClient) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.server+path, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s (HTTP %d)", serverMessage(data), resp.StatusCode)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// serverMessage is the message of a Status body, or the body's text.
func serverMessage(body []byte) string {
	var st struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Message != "" {
		return st.Message
	}
	return strings.TrimSpace(string(body))
}
