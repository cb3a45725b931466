package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/raftapi/raftapi/chaos/check"
	"github.com/raftapi/raftapi/chaos/history"
)

// Summary is the gist of a run.
type Summary struct {
	Passed   bool          `json:"passed"`
	Seed     uint64        `json:"seed"`
	Nodes    []string      `json:"nodes"`
	Duration time.Duration `json:"duration"`
	// Ops counts the operations by resource and kind, then outcome.
	Ops map[history.Kind]map[history.Outcome]int `json:"ops"`
	// Unserved counts, per resource, the operations a node answered with
	// a 404 for the resource's path (a custom resource whose definition
	// it had not applied yet); they are among the failed and unknown.
	Unserved map[string]int `json:"unserved,omitempty"`
	// Through and WatchesThrough count, per resource and version
	// ("chaosobjects v2"), the operations and the watch requests that went
	// through a version of a resource served in several.
	Through        map[string]int `json:"throughVersion,omitempty"`
	WatchesThrough map[string]int `json:"watchesThroughVersion,omitempty"`
	Events         int            `json:"watchEvents"`
	// EventsBy counts the watch events received per resource.
	EventsBy map[string]int `json:"watchEventsByResource,omitempty"`
	// Watch counts what the watchers went through: bookmarks,
	// initial-events-end bookmarks, resumed watches, relists after 410.
	Watch  map[string]int `json:"watch"`
	Faults map[string]int `json:"faults"`
	// FaultErrors counts faults whose injection or recovery failed.
	FaultErrors int `json:"faultErrors"`
	// Unavailable maps a requested failpoint to why it could not run.
	Unavailable map[string]string `json:"unavailable,omitempty"`
	// Error is what stopped the run early, if anything did.
	Error   string         `json:"error,omitempty"`
	Results []check.Result `json:"results"`
}

// Summarize tallies h and the checker results.
func Summarize(h *history.History, results []check.Result, seed uint64) Summary {
	s := Summary{Passed: check.Passed(results), Seed: seed, Nodes: h.Nodes, Duration: time.Duration(h.End),
		Ops: h.Counts(), Unserved: h.Unserved(), Faults: map[string]int{}, Results: results, Watch: map[string]int{},
		EventsBy: map[string]int{}}
	s.Through, s.WatchesThrough = h.Through()
	for _, e := range h.Events {
		switch {
		case e.IsChange():
			s.Events++
			if e.Resource != "" {
				s.EventsBy[e.Resource]++
			}
		case e.InitialEnd:
			s.Watch["initial-events-end bookmarks"]++
		case e.Type == history.Bookmark:
			s.Watch["bookmarks"]++
		case e.Type == history.Start && e.RV > 0:
			s.Watch["resumed watches"]++
		case e.Type == history.Relist:
			s.Watch["lists (first and after 410)"]++
		case e.Type == history.Error:
			s.Watch["error events"]++
		}
	}
	for _, f := range h.Faults {
		s.Faults[f.Name]++
		if f.Error != "" {
			s.FaultErrors++
		}
	}
	return s
}

// WriteText writes the summary for people.
func (s *Summary) WriteText(w io.Writer) {
	verdict := "PASS"
	if !s.Passed {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %d nodes, %s, seed %d\n", verdict, len(s.Nodes), s.Duration.Round(time.Second), s.Seed)
	if s.Error != "" {
		fmt.Fprintf(w, "run error: %s\n", s.Error)
	}
	fmt.Fprintf(w, "\noperations:\n")
	for _, k := range sortedKeys(s.Ops) {
		c := s.Ops[history.Kind(k)]
		fmt.Fprintf(w, "  %-40s ok %6d  failed %6d  unknown %6d\n", k, c[history.OK], c[history.Failed], c[history.Unknown])
	}
	for _, k := range sortedKeys(s.Unserved) {
		fmt.Fprintf(w, "  %s requests answered 404 for the path by a node not serving it: %d\n", k, s.Unserved[k])
	}
	for _, k := range sortedKeys(s.Through) {
		fmt.Fprintf(w, "  %s through %s: %d operations, %d watch requests\n", strings.Fields(k)[0], strings.Fields(k)[1], s.Through[k], s.WatchesThrough[k])
	}
	fmt.Fprintf(w, "  watch events received: %d\n", s.Events)
	for _, k := range sortedKeys(s.EventsBy) {
		fmt.Fprintf(w, "    of %s: %d\n", k, s.EventsBy[k])
	}
	for _, k := range sortedKeys(s.Watch) {
		fmt.Fprintf(w, "  watchers' %s: %d\n", k, s.Watch[k])
	}
	fmt.Fprintf(w, "\nfaults injected (%d with errors):\n", s.FaultErrors)
	for _, k := range sortedKeys(s.Faults) {
		fmt.Fprintf(w, "  %-20s %d\n", k, s.Faults[k])
	}
	for _, k := range sortedKeys(s.Unavailable) {
		fmt.Fprintf(w, "  %-20s unavailable: %s\n", k, s.Unavailable[k])
	}
	fmt.Fprintf(w, "\ncheckers:\n")
	for _, r := range s.Results {
		writeResult(w, r)
	}
}

func writeResult(w io.Writer, r check.Result) {
	v := "pass"
	if !r.Passed {
		v = "FAIL"
	}
	fmt.Fprintf(w, "  %-14s %s  checked %d, skipped %d, anomalies %d", r.Checker, v, r.Checked, r.Skipped, r.Count)
	if r.Tolerated > 0 {
		fmt.Fprintf(w, " (%d of known, tolerated kinds)", r.Tolerated)
	}
	fmt.Fprintln(w)
	for _, k := range sortedKeys(r.Kinds) {
		fmt.Fprintf(w, "    %-36s %d\n", k, r.Kinds[k])
	}
	for _, a := range r.Anomalies {
		fmt.Fprintf(w, "    - [%s at %.3fs] %s\n", a.Kind, float64(a.Time)/1e9, strings.ReplaceAll(a.Message, "\n", " "))
	}
}

func sortedKeys[K ~string, V any](m map[K]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}
