package traffic

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/raftapi/raftapi/chaos/history"
)

// Get reads key at Most Recent through node.
func (c *Client) Get(ctx context.Context, op history.Op) history.Op {
	r := c.do(ctx, http.MethodGet, c.objectURL(op.Node, op.Key), nil)
	switch {
	case r.err == nil && r.code == http.StatusOK:
		var o object
		if err := json.Unmarshal(r.body, &o); err != nil {
			return unknown(op, reply{err: err})
		}
		op.Outcome, op.Found, op.Value, op.ResultRV = history.OK, true, o.Data[valueKey], o.rv()
	case r.err == nil && r.code == http.StatusNotFound:
		op.Outcome = history.OK
	default:
		return unknown(op, r)
	}
	return op
}

// Create creates key with op.Value through node.
func (c *Client) Create(ctx context.Context, op history.Op) history.Op {
	r := c.do(ctx, http.MethodPost, c.collectionURL(op.Node, nil), newObject(c.Namespace, op.Key, op.Value, 0))
	return c.written(op, r)
}

// Update sets key to op.Value if it is still at op.PrecondRV.
func (c *Client) Update(ctx context.Context, op history.Op) history.Op {
	r := c.do(ctx, http.MethodPut, c.objectURL(op.Node, op.Key), newObject(c.Namespace, op.Key, op.Value, op.PrecondRV))
	return c.written(op, r)
}

// Delete deletes key.
func (c *Client) Delete(ctx context.Context, op history.Op) history.Op {
	r := c.do(ctx, http.MethodDelete, c.objectURL(op.Node, op.Key), nil)
	return c.written(op, r)
}

// written fills a write's outcome from its reply.
func (c *Client) written(op history.Op, r reply) history.Op {
	op.Outcome = outcome(r)
	if op.Outcome != history.OK {
		op.Code, op.Error = r.code, r.describe()
		return op
	}
	if op.Kind == history.Delete {
		return op
	}
	var o object
	if err := json.Unmarshal(r.body, &o); err != nil || o.rv() == 0 {
		op.Outcome, op.Error = history.Unknown, "no resourceVersion in the answer"
		return op
	}
	op.ResultRV = o.rv()
	return op
}

// unknown marks a read without a usable answer.
func unknown(op history.Op, r reply) history.Op {
	op.Outcome, op.Code, op.Error = history.Unknown, r.code, r.describe()
	return op
}
