package check

import (
	"github.com/raftapi/raftapi/chaos/history"
)

// checkServed checks the answers a node gave without serving the
// resource (Op.Unserved: a 404 for the path, not for an object). The
// traffic starts once every node serves every resource, and no run
// deletes a definition, so a node may answer so only after a fault
// restarted it (history.Fault.Restarts) and until it serves the resource
// again: once it has, it applied the definition, and its state never goes
// back.
func checkServed(r *Result, h *history.History) {
	restarts := map[string][]history.Fault{}
	for _, f := range h.Faults {
		if f.Restarts {
			for _, n := range f.Targets {
				restarts[n] = append(restarts[n], f)
			}
		}
	}
	type nodeResource struct{ node, resource string }
	served := map[nodeResource][]history.Op{}
	for _, o := range h.Ops {
		if wasServed(o) {
			k := nodeResource{o.Node, o.Resource}
			served[k] = append(served[k], o)
		}
	}
	for _, u := range h.Ops {
		if !u.Unserved {
			continue
		}
		r.Checked++
		what := sprintf("%s answered %s op %d on %s (%s–%s) with a 404 for the path of %s", u.Node, u.Kind, u.ID, history.KeyLabel(u.Resource, u.Key),
			at(u.Invoke), at(u.Complete), u.Resource)
		last, ok := lastRestart(restarts[u.Node], u.Complete)
		if !ok {
			r.add("resource-unserved", u.Complete, "%s, without having been restarted: every node served it before the traffic began", what)
			continue
		}
		for _, o := range served[nodeResource{u.Node, u.Resource}] {
			if o.Invoke >= last.End && o.Complete <= u.Invoke {
				r.add("resource-unserved", u.Complete, "%s, although it served it again after its restart by %s (which ended at %s): %s op %d at %s",
					what, last.Name, at(last.End), o.Kind, o.ID, at(o.Complete))
				break
			}
		}
	}
}

// wasServed reports whether the node served the operation's resource: it
// answered, and not with a 404 for the path or a 503, nor with a 401, 403
// or 429, which are answered before the request reaches a route (in
// kube-apiserver too: authentication, authorization and priority and
// fairness come first). A node that has just come back empty refuses
// everyone as forbidden until it has its roles back, and may serve the
// custom resources only after that.
func wasServed(o history.Op) bool {
	switch {
	case o.Outcome == history.OK:
		return true
	case o.Outcome != history.Failed || o.Code/100 != 4 || o.Unserved:
		return false
	}
	switch o.Code {
	case 401, 403, 429:
		return false
	}
	return true
}

// lastRestart returns the last of a node's restarting faults that began
// before t.
func lastRestart(fs []history.Fault, t int64) (history.Fault, bool) {
	var last history.Fault
	ok := false
	for _, f := range fs {
		if f.Start < t && (!ok || f.Start > last.Start) {
			last, ok = f, true
		}
	}
	return last, ok
}
