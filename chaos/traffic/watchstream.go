package traffic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// watchParams says where a watch starts.
type watchParams struct {
	node      string
	res       Resource
	rv        int64 // resume after this resourceVersion; 0 with initial
	bookmarks bool
	initial   bool // sendInitialEvents=true at Most Recent
	timeout   time.Duration
}

func (p watchParams) query() url.Values {
	q := url.Values{"watch": {"true"}, "timeoutSeconds": {strconv.Itoa(int(p.timeout.Seconds()))}}
	if p.bookmarks || p.initial {
		q.Set("allowWatchBookmarks", "true")
	}
	if p.initial {
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
	} else {
		q.Set("resourceVersion", strconv.FormatInt(p.rv, 10))
	}
	return q
}

// watch streams events to fn until the stream ends, fn returns false,
// nothing arrives for idle, or ctx ends. A refused watch returns the HTTP
// status with the error.
func (c *Client) watch(ctx context.Context, p watchParams, idle time.Duration, fn func(watchEvent) bool) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.collectionURL(p.node, p.res, p.query()), nil)
	if err != nil {
		return 0, err
	}
	alive := time.AfterFunc(idle+c.Timeout, cancel) // the answer's headers, then each event
	defer alive.Stop()
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var st status
		_ = json.NewDecoder(resp.Body).Decode(&st)
		return resp.StatusCode, fmt.Errorf("watch: HTTP %d %s: %s", resp.StatusCode, st.Reason, st.Message)
	}
	dec := json.NewDecoder(resp.Body)
	for {
		alive.Reset(idle)
		var ev watchEvent
		if err := dec.Decode(&ev); err != nil {
			return http.StatusOK, err
		}
		if !fn(ev) {
			return http.StatusOK, nil
		}
	}
}
