package history

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

// Counts tallies the operations by kind and outcome.
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
		if out[k] == nil {
			out[k] = map[Outcome]int{}
		}
		out[k][o.Outcome]++
	}
	return out
}
