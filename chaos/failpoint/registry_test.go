package failpoint

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		list string
		want []string
	}{
		{"kill", []string{"kill-leader", "kill-minority", "kill-random"}},
		{"pause,loss,pause-leader", []string{"pause-leader", "pause-random", "loss"}},
		{"partition-leader", []string{"partition-leader"}},
	}
	for _, tc := range cases {
		fps, err := Parse(tc.list, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fps {
			got = append(got, f.Name())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %v, want %v", tc.list, got, tc.want)
		}
	}
	if all, _ := Parse("all", Options{}); len(all) != len(Names()) {
		t.Errorf("all: %d failpoints, want %d", len(all), len(Names()))
	}
	if _, err := Parse("nonsense", Options{}); err == nil {
		t.Error("unknown fault accepted")
	}
	if err := ClockJump(false, 0).Available(3); err == nil {
		t.Error("clock jumps available without being allowed")
	}
}

// TestRestarts: the faults that restart processes say so; the others
// do not.
func TestRestarts(t *testing.T) {
	want := map[string]bool{"kill-random": true, "kill-leader": true, "kill-minority": true, "membership": true, "wipe": true}
	all, err := Parse("all", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if got := restarts(f); got != want[f.Name()] {
			t.Errorf("%s: restarts %v, want %v", f.Name(), got, want[f.Name()])
		}
	}
}
