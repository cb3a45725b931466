package clusterbench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/raftapi/raftapi/bench/internal/figures"
	"github.com/raftapi/raftapi/bench/internal/load"
	"github.com/raftapi/raftapi/bench/internal/report"
)

func TestCPUTable(t *testing.T) {
	fig := func(target, name string, ops int, servers, loadgen time.Duration) figures.Outcome {
		return figures.Outcome{Figure: name, Target: target, Summary: load.Summary{Ops: ops, Elapsed: 8 * time.Second,
			ServerCPU: servers, LoadGenCPU: loadgen}}
	}
	res := Results{
		Raftapi: []figures.Outcome{
			fig("raftapi", "update, 64 clients", 16000, 12*time.Second, 2*time.Second),
			fig("raftapi", "watch delivery, 64 watchers", 100, 0, 0),
			fig("raftapi", "list", 100, time.Second, time.Second),
		},
		Etcd: []figures.Outcome{fig("etcd", "update, 64 clients", 40000, 12*time.Second, 2*time.Second)},
	}
	got := res.CPUTable()
	want := [][]string{
		{"update, 64 clients", "1.50 cores", "750 µs", "125 µs", "1.50 cores", "300 µs", "50 µs", "2.50×"},
		{"list", "0.12 cores", "10000 µs", "10000 µs", "–", "–", "–", "–"},
	}
	if !slices.EqualFunc(got.Table.Rows, want, slices.Equal) {
		t.Errorf("CPUTable rows = %q, want %q", got.Table.Rows, want)
	}
	md := report.Report{Title: "t", Table: res.Table(), More: []report.Titled{got}}.Markdown()
	if !strings.Contains(md, "### CPU time") || !strings.Contains(md, "2.50×") {
		t.Errorf("the report's markdown lacks the CPU table:\n%s", md)
	}
}
