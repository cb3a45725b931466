package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raftapi/raftapi/chaos/check"
	"github.com/raftapi/raftapi/chaos/history"
)

func TestWrite(t *testing.T) {
	h := &history.History{Namespace: "chaos", Nodes: []string{"n1", "n2"}, End: 10e9, Attempted: map[string]bool{"v": true},
		Ops: []history.Op{
			{ID: 1, Kind: history.Create, Key: "a", Value: "v", Invoke: 1e9, Complete: 1.01e9, Outcome: history.OK, ResultRV: 3},
			{ID: 2, Kind: history.Get, Key: "a", Invoke: 5e9, Complete: 9e9, Outcome: history.Unknown},
		},
		Faults:  []history.Fault{{Name: "kill-leader", Targets: []string{"n1"}, Start: 2e9, End: 6e9}},
		Samples: []history.Sample{{Node: "n1", Time: 0, State: "Leader"}, {Node: "n1", Time: 2e9, State: "down"}, {Node: "n2", Time: 0, State: "Follower"}},
	}
	results := check.All(h, check.Options{})
	s := Summarize(h, results, 1)
	dir := t.TempDir()
	if err := Write(dir, h, &s); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"history.jsonl", "results.json", "summary.txt", "index.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, want := range []string{"<svg", "kill-leader", "create (1)", "get (1)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if s.Faults["kill-leader"] != 1 || s.Ops[history.Create][history.OK] != 1 {
		t.Errorf("summary: %+v", s)
	}
}

// TestSummaryByResource: operations and watch events are counted per
// resource, and answers from nodes not serving a resource are counted.
func TestSummaryByResource(t *testing.T) {
	h := &history.History{Nodes: []string{"n1"}, Attempted: map[string]bool{},
		Ops: []history.Op{
			{ID: 1, Resource: "configmaps", Kind: history.Get, Key: "r", Outcome: history.OK},
			{ID: 2, Resource: "chaosobjects", Kind: history.Get, Key: "o", Outcome: history.OK},
			{ID: 3, Resource: "chaosobjects", Kind: history.Get, Key: "o", Node: "n1", Outcome: history.Unknown, Code: 404, Unserved: true},
		},
		Events: []history.WatchEvent{{Watcher: 1, Resource: "chaosobjects", Type: history.Deleted, Key: "o", RV: 3}},
		Faults: []history.Fault{{Name: "kill-random", Targets: []string{"n1"}, Restarts: true}},
	}
	s := Summarize(h, check.All(h, check.Options{}), 1)
	var b strings.Builder
	s.WriteText(&b)
	for _, want := range []string{"configmaps/get", "chaosobjects/get", "chaosobjects requests answered 404 for the path by a node not serving it: 1", "of chaosobjects: 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
