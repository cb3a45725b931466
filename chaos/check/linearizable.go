package check

import (
	"bytes"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/raftapi/raftapi/chaos/history"
)

// Linearizable checks the register workload per key (of each resource)
// with porcupine. Reads with an unknown outcome, writes that definitely
// failed without saying why and requests a node answered without serving
// the resource (Op.Unserved) are left out; writes with an unknown outcome
// may have taken effect at any time after their invocation.
func Linearizable(h *history.History, timeout time.Duration) Result {
	r := &Result{Checker: "linearizable", Artifacts: map[string][]byte{}}
	byKey := registerOps(h)
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	results := make([]porcupine.CheckResult, len(keys))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = porcupine.CheckOperationsTimeout(registerModel, byKey[k], timeout)
		}()
	}
	wg.Wait()
	for i, k := range keys {
		r.Checked += len(byKey[k])
		explain(r, k, byKey[k], results[i], timeout)
	}
	return r.finish()
}

// registerOps turns the history's register operations into porcupine's,
// by key label (resource/key).
func registerOps(h *history.History) map[string][]porcupine.Operation {
	out := map[string][]porcupine.Operation{}
	for _, o := range h.Ops {
		if o.Key == "" || o.Kind == history.List || o.Unserved {
			continue
		}
		in := regInput{Kind: o.Kind, Value: o.Value, PrecondVal: o.PrecondVal}
		var res regOutput
		ret := o.Complete
		switch {
		case o.Outcome == history.OK:
			res = regOutput{Found: o.Found, Value: o.Value, RV: o.ResultRV}
			if o.Kind == history.Get && !o.Found {
				res.Value = ""
			}
		case o.Outcome == history.Failed && (o.Code == 404 || o.Code == 409):
			res = regOutput{Code: o.Code}
		case o.Outcome == history.Unknown && o.IsWrite():
			res, ret = regOutput{Unknown: true}, math.MaxInt64
		default:
			continue
		}
		out[o.KeyLabel()] = append(out[o.KeyLabel()], porcupine.Operation{ClientId: o.Client, Input: in, Call: o.Invoke, Output: res, Return: ret, Metadata: o.ID})
	}
	return out
}

// explain records a key that is not linearizable with the operations
// porcupine could not place, and saves its visualization.
func explain(r *Result, key string, ops []porcupine.Operation, res porcupine.CheckResult, timeout time.Duration) {
	switch res {
	case porcupine.Ok:
		return
	case porcupine.Unknown:
		r.add("inconclusive", 0, "key %s: porcupine found no answer within %s over %d operations", key, timeout, len(ops))
		return
	}
	_, info := porcupine.CheckOperationsVerbose(registerModel, ops, timeout)
	order, longest := unplaced(ops, info)
	var lines []string
	var first int64
	for n, i := range order {
		if n == 0 {
			first = ops[i].Return
		}
		if n == 5 {
			break
		}
		o := ops[i]
		lines = append(lines, sprintf("op %v client %d [%s, %s] %s", o.Metadata, o.ClientId, at(o.Call), atOrEnd(o.Return), describe(o.Input.(regInput), o.Output.(regOutput))))
	}
	kind := anomalyKind(ops, order)
	if porcupine.CheckOperationsTimeout(lenientModel, ops, timeout) == porcupine.Ok {
		kind = "update-404-while-present"
	}
	file := "linearizable-" + strings.ReplaceAll(key, "/", "-") + ".html"
	r.add(kind, first, "key %s is not linearizable: %d of %d operations fit one order; the first that cannot be placed: %s (see %s)",
		key, longest, len(ops), strings.Join(lines, "; "), file)
	var buf bytes.Buffer
	if porcupine.Visualize(registerModel, info, &buf) == nil {
		r.Artifacts[file] = buf.Bytes()
	}
}

// unplaced returns the operations outside porcupine's longest partial
// linearization, by return time, and that linearization's length.
func unplaced(ops []porcupine.Operation, info porcupine.LinearizationInfo) ([]int, int) {
	placed := map[int]bool{}
	longest := 0
	for _, part := range info.PartialLinearizations() {
		for _, lin := range part {
			if len(lin) > longest {
				longest, placed = len(lin), map[int]bool{}
				for _, id := range lin {
					placed[id] = true
				}
			}
		}
	}
	var order []int
	for i := range ops {
		if !placed[i] {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return ops[order[a]].Return < ops[order[b]].Return })
	return order, longest
}

// anomalyKind names what the first unplaceable operation suggests: a read
// that sees an old value is a stale read, a read that misses an
// acknowledged write a lost write. (A key that only fails because updates
// were refused with 404 while it existed is named by the caller.)
func anomalyKind(ops []porcupine.Operation, order []int) string {
	if len(order) == 0 {
		return "not-linearizable"
	}
	o := ops[order[0]]
	in, out := o.Input.(regInput), o.Output.(regOutput)
	if in.Kind != history.Get {
		return "not-linearizable"
	}
	if !out.Found {
		return "lost-write"
	}
	return "stale-read"
}

func atOrEnd(ns int64) string {
	if ns == math.MaxInt64 {
		return "never"
	}
	return at(ns)
}
