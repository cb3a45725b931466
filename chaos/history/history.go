package history

import "sort"

// History is everything one run recorded.
type History struct {
	Namespace string       `json:"namespace"`
	Nodes     []string     `json:"nodes"`
	Ops       []Op         `json:"-"`
	Events    []WatchEvent `json:"-"`
	Faults    []Fault      `json:"-"`
	Samples   []Sample     `json:"-"`
	// Attempted holds every value a write tried to set, so a checker can
	// tell a value nobody wrote from one whose write had an unknown
	// outcome.
	Attempted map[string]bool `json:"-"`
	// End is when the run stopped, in nanoseconds since it began.
	End int64 `json:"end"`
}

// WatcherEvents returns the events of each watcher in arrival order.
func (h *History) WatcherEvents() map[int][]WatchEvent {
	out := map[int][]WatchEvent{}
	for _, e := range h.Events {
		out[e.Watcher] = append(out[e.Watcher], e)
	}
	return out
}

// Counts tallies the operations by resource, kind and outcome: the keys
// are "configmaps/get", "chaosobjects/list-exact-paged" and so on (just
// the kind in a history without resources).
func (h *History) Counts() map[Kind]map[Outcome]int {
	out := map[Kind]map[Outcome]int{}
	for _, o := range h.Ops {
		k := o.Kind
		if o.Kind == List {
			k = Kind("list-" + string(o.Mode))
			if o.Limit > 0 {
				k += "-paged"
			}
		}
		if o.Resource != "" {
			k = Kind(o.Resource) + "/" + k
		}
		if out[k] == nil {
			out[k] = map[Outcome]int{}
		}
		out[k][o.Outcome]++
	}
	return out
}

// Unserved counts, per resource, the operations a node answered with a
// 404 for the resource's path (see Op.Unserved).
func (h *History) Unserved() map[string]int {
	out := map[string]int{}
	for _, o := range h.Ops {
		if o.Unserved {
			out[o.Resource]++
		}
	}
	return out
}

// Resources returns the resources the history's operations and watchers
// used, sorted ("" for a history without resources).
func (h *History) Resources() []string {
	seen := map[string]bool{}
	for _, o := range h.Ops {
		seen[o.Resource] = true
	}
	for _, e := range h.Events {
		seen[e.Resource] = true
	}
	out := make([]string, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Through counts, per resource and version ("chaosobjects v2"), the
// operations and the watch requests (START markers) that went through a
// version of a resource served in several.
func (h *History) Through() (ops, watches map[string]int) {
	ops, watches = map[string]int{}, map[string]int{}
	for _, o := range h.Ops {
		if o.Version != "" {
			ops[o.Resource+" "+o.Version]++
		}
	}
	for _, e := range h.Events {
		if e.Type == Start && e.Version != "" {
			watches[e.Resource+" "+e.Version]++
		}
	}
	return ops, watches
}
