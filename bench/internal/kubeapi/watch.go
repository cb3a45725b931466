package kubeapi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Watch is one open watch stream (of ConfigMaps or custom objects).
type Watch struct {
	body   io.ReadCloser
	rd     *bufio.Reader
	cancel context.CancelFunc
}

// Event is one watch event, as much of it as Next reads.
type Event struct {
	Type string // ADDED, MODIFIED, DELETED, BOOKMARK
	Name string // the object's name
}

// ErrWatchEnded is Next's error when the server ended the stream.
var ErrWatchEnded = errors.New("kubeapi: the server ended the watch")

// WatchConfigMaps opens a watch of namespace ns's ConfigMaps from
// resourceVersion rv and returns once the server has answered 200.
func (c *Client) WatchConfigMaps(ctx context.Context, ns, rv string) (*Watch, error) {
	return c.watchPath(ctx, configMapsPath(ns), rv)
}

// watchPath opens a watch of the collection at collection from
// resourceVersion rv.
func (c *Client) watchPath(ctx context.Context, collection, rv string) (*Watch, error) {
	q := url.Values{"watch": {"1"}, "resourceVersion": {rv}}
	path := collection + "?" + q.Encode()
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("kubeapi: watch %s: %w", collection, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("kubeapi: watch %s: %w", collection, err)
	}
	if resp.StatusCode != http.StatusOK {
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, newError(http.MethodGet, path, resp.StatusCode, out)
	}
	return &Watch{body: resp.Body, rd: bufio.NewReaderSize(resp.Body, 1<<20), cancel: cancel}, nil
}

// Next blocks for the next event. The server writes one JSON event per
// line; Next finds the event's type and the object's name in it without
// decoding the object. An ERROR event (410 Gone, say) is an error.
func (w *Watch) Next() (Event, error) {
	line, err := w.rd.ReadSlice('\n')
	if err == io.EOF && len(bytes.TrimSpace(line)) == 0 {
		return Event{}, ErrWatchEnded
	}
	if err != nil {
		return Event{}, fmt.Errorf("kubeapi: watch: %w", err)
	}
	ev := Event{Type: stringAfter(line, `"type":"`)}
	if ev.Type == "ERROR" {
		return ev, fmt.Errorf("kubeapi: watch: ERROR event: %s", truncate(line, 300))
	}
	if meta := bytes.Index(line, []byte(`"metadata":`)); meta >= 0 {
		ev.Name = stringAfter(line[meta:], `"name":"`)
	}
	if ev.Type == "" || ev.Name == "" {
		return ev, fmt.Errorf("kubeapi: watch: not an event: %s", truncate(line, 300))
	}
	return ev, nil
}

// stringAfter returns the JSON string (without escapes) that follows the
// first occurrence of prefix in b, or "".
func stringAfter(b []byte, prefix string) string {
	i := bytes.Index(b, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := b[i+len(prefix):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// Close ends the stream.
func (w *Watch) Close() {
	w.cancel()
	w.body.Close()
}
