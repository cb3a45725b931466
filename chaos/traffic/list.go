package traffic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/raftapi/raftapi/chaos/history"
)

// List lists op.Resource in the namespace through op.Node as op asks:
// op.Mode with op.RequestedRV, and pages of op.Limit items when op.Limit
// is set. Every page's resourceVersion is kept in op.Pages.
func (c *Client) List(ctx context.Context, op history.Op) history.Op {
	res := resourceOf(op.Resource, op.Version)
	q := url.Values{}
	switch op.Mode {
	case history.Exact:
		q.Set("resourceVersion", strconv.FormatInt(op.RequestedRV, 10))
		q.Set("resourceVersionMatch", "Exact")
	case history.NotOlderThan:
		q.Set("resourceVersion", strconv.FormatInt(op.RequestedRV, 10))
		q.Set("resourceVersionMatch", "NotOlderThan")
	}
	if op.Limit > 0 {
		q.Set("limit", strconv.Itoa(op.Limit))
	}
	for {
		l, r := c.listPage(ctx, op.Node, res, q)
		if r.err != nil || r.code != http.StatusOK {
			op.Outcome, op.Code, op.Error, op.Unserved = outcome(r), r.code, r.describe(), unserved(r)
			op.Items, op.Pages = nil, nil
			return op
		}
		if len(op.Pages) == 0 {
			op.ResultRV = l.rv()
		}
		op.Pages = append(op.Pages, l.rv())
		for _, it := range l.Items {
			if res.Owns(it.Metadata.Name) {
				op.Items = append(op.Items, it.item(res))
			}
		}
		if l.Metadata.Continue == "" || op.Limit == 0 {
			op.Outcome = history.OK
			return op
		}
		q = url.Values{"limit": {strconv.Itoa(op.Limit)}, "continue": {l.Metadata.Continue}}
	}
}

func (c *Client) listPage(ctx context.Context, node string, res Resource, q url.Values) (objectList, reply) {
	var l objectList
	r := c.do(ctx, http.MethodGet, c.collectionURL(node, res, q), nil)
	if r.err == nil && r.code == http.StatusOK {
		if err := json.Unmarshal(r.body, &l); err != nil {
			r.err = err
		}
	}
	return l, r
}
