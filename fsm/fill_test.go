package fsm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raftapi/raftapi/fsm"
)

// History records are keyed by revision and only ever appended, so the
// history's leaves are written nearly full: at bbolt's default of half
// full, records of an update (each carrying the 1 KiB object it
// replaced) took a page per two, a little over half of it used, for good.
func TestHistoryPagesAreFilled(t *testing.T) {
	h := newHarness(t)
	pad := strings.Repeat("x", 960)
	obj := func(i int) []byte { return fmt.Appendf(nil, `{"metadata":{"name":"o%d"},"data":%q}`, i, pad) }
	const keys = 100
	for i := range keys {
		h.mustApply(&fsm.Command{Type: fsm.CmdCreate, Key: fmt.Sprintf("/k/%03d", i), Object: obj(i)})
	}
	for round := range 2 {
		for b := range 50 {
			cmds := make([]*fsm.Command, 20)
			for i := range cmds {
				cmds[i] = &fsm.Command{Type: fsm.CmdUpdate, Key: fmt.Sprintf("/k/%03d", (b*20+i)%keys), Object: obj(b*20 + i)}
			}
			for _, r := range h.apply(cmds...) {
				if r.Err != nil {
					t.Fatal(r.Err)
				}
			}
		}
		if fill := fsm.HistoryLeafFill(h.f); fill < 0.7 {
			t.Fatalf("round %d: the history's leaves are %.0f%% used, want at least 70%%", round, 100*fill)
		}
		h.reopen()
	}
}
