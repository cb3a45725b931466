package history

import (
	"bytes"
	"reflect"
	"testing"
)

func TestWriteReadRoundTrip(t *testing.T) {
	want := &History{Namespace: "chaos", Nodes: []string{"n1", "n2"}, End: 42,
		Ops:       []Op{{ID: 1, Kind: Create, Key: "a", Value: "v1", Outcome: OK, ResultRV: 7}, {ID: 2, Kind: List, Mode: Exact, Items: []Item{{Key: "a", Value: "v1", RV: 7}}}},
		Events:    []WatchEvent{{Watcher: 1, Seq: 1, Type: Added, Key: "a", Value: "v1", RV: 7}},
		Faults:    []Fault{{Name: "kill-leader", Targets: []string{"n1"}, Start: 1, End: 2}},
		Samples:   []Sample{{Node: "n1", State: "Leader", Term: 2}},
		Attempted: map[string]bool{"v1": true},
	}
	var buf bytes.Buffer
	if err := Write(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
}
