package clusterbench

import (
	"slices"
	"testing"
)

func TestLeaderLast(t *testing.T) {
	for leader, want := range [][]string{{"b", "c", "a"}, {"a", "c", "b"}, {"a", "b", "c"}} {
		in := []string{"a", "b", "c"}
		if got := leaderLast(in, leader); !slices.Equal(got, want) {
			t.Errorf("leaderLast(%d) = %v, want %v", leader, got, want)
		}
		if !slices.Equal(in, []string{"a", "b", "c"}) {
			t.Errorf("leaderLast changed its input: %v", in)
		}
	}
}
