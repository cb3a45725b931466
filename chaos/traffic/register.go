package traffic

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/raftapi/raftapi/chaos/history"
)

// Get reads key of op.Resource at Most Recent through node. A 404 for a
// path the node does not serve says nothing about the key: it is unknown,
// marked Unserved.
func (c *Client) Get(ctx context.Context, op history.Op) history.Op {
	res := resourceOf(op.Resource, op.Version)
	r := c.do(ctx, http.MethodGet, c.objectURL(op.Node, res, op.Key), nil)
	switch {
	case r.err == nil && r.code == http.StatusOK:
		var o object
		if err := json.Unmarshal(r.body, &o); err != nil {
			return unknown(op, reply{err: err})
		}
		op.Outcome, op.Found, op.Value, op.ResultRV = history.OK, true, o.value(res), o.rv()
	case unserved(r):
		op = unknown(op, r)
		op.Unserved = true
	case r.err == nil && r.code == http.StatusNotFound:
		op.Outcome = history.OK
	default:
		return unknown(op, r)
	}
	return op
}

// Create creates key with op.Value through node.
func (c *Client) Create(ctx context.Context, op history.Op) history.Op {
	res := resourceOf(op.Resource, op.Version)
	r := c.do(ctx, http.MethodPost, c.collectionURL(op.Node, res, nil), newObject(res, c.Namespace, op.Key, op.Value, 0))
	return c.written(op, r)
}

// Update sets key to op.Value if it is still at op.PrecondRV.
func (c *Client) Update(ctx context.Context, op history.Op) history.Op {
	res := resourceOf(op.Resource, op.Version)
	r := c.do(ctx, http.MethodPut, c.objectURL(op.Node, res, op.Key), newObject(res, c.Namespace, op.Key, op.Value, op.PrecondRV))
	return c.written(op, r)
}

// Patch sets key to op.Value with a JSON merge patch that carries
// op.PrecondRV as its resourceVersion: the server refuses it (409) unless
// the object is still at that resourceVersion.
func (c *Client) Patch(ctx context.Context, op history.Op) history.Op {
	res := resourceOf(op.Resource, op.Version)
	r := c.send(ctx, http.MethodPatch, c.objectURL(op.Node, res, op.Key), mergePatchType, patchObject(res, op.Value, op.PrecondRV))
	return c.written(op, r)
}

// Delete deletes key.
func (c *Client) Delete(ctx context.Context, op history.Op) history.Op {
	r := c.do(ctx, http.MethodDelete, c.objectURL(op.Node, resourceOf(op.Resource, op.Version), op.Key), nil)
	return c.written(op, r)
}

// written fills a write's outcome from its reply.
func (c *Client) written(op history.Op, r reply) history.Op {
	op.Outcome = outcome(r)
	if op.Outcome != history.OK {
		op.Code, op.Error, op.Unserved = r.code, r.describe(), unserved(r)
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
