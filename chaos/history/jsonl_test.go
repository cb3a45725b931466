package history

import (
	"bytes"
	"reflect"
	"testing"
)

func TestWriteReadRoundTrip(t *testing.T) {
	want := &History{Namespace: "chaos", Nodes: []string{"n1", "n2"}, End: 42,
		Ops: []Op{{ID: 1, Kind: Create, Key: "a", Value: "v1", Outcome: OK, ResultRV: 7}, {ID: 2, Kind: List, Mode: Exact, Items: []Item{{Key: "a", Value: "v1", RV: 7}}},
			{ID: 3, Resource: "chaosobjects", Kind: Patch, Key: "o", Value: "v2", PrecondRV: 7, PrecondVal: "v1", Outcome: Failed, Code: 404, Unserved: true}},
		Events:    []WatchEvent{{Watcher: 1, Seq: 1, Type: Added, Key: "a", Value: "v1", RV: 7}, {Watcher: 2, Seq: 2, Resource: "chaosobjects", Type: Start, Mode: WatchPlain}},
		Faults:    []Fault{{Name: "kill-leader", Targets: []string{"n1"}, Start: 1, End: 2, Restarts: true}},
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

func TestCountsByResource(t *testing.T) {
	h := &History{Ops: []Op{
		{Kind: Get, Outcome: OK}, {Resource: "configmaps", Kind: Patch, Outcome: OK},
		{Resource: "chaosobjects", Kind: List, Mode: Exact, Limit: 2, Outcome: OK},
		{Resource: "chaosobjects", Kind: Get, Outcome: Unknown, Unserved: true},
	}}
	c := h.Counts()
	if c[Get][OK] != 1 || c["configmaps/patch"][OK] != 1 || c["chaosobjects/list-exact-paged"][OK] != 1 || c["chaosobjects/get"][Unknown] != 1 {
		t.Errorf("counts: %v", c)
	}
	if u := h.Unserved(); len(u) != 1 || u["chaosobjects"] != 1 {
		t.Errorf("unserved: %v", u)
	}
	if r := h.Resources(); !reflect.DeepEqual(r, []string{"", "chaosobjects", "configmaps"}) {
		t.Errorf("resources: %q", r)
	}
}
