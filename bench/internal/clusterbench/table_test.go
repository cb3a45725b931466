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

// TestTableComparesEachTarget checks the columns and ratios with etcd
// and kube-apiserver beside raftapi, a figure one of them lacks, and
// raftapi alone.
func TestTableComparesEachTarget(t *testing.T) {
	fig := func(target, name string, ops int) figures.Outcome {
		return figures.Outcome{Figure: name, Target: target, Summary: load.Summary{Ops: ops, Elapsed: 8 * time.Second,
			OpsPerSec: float64(ops) / 8, P50: time.Millisecond, P99: 2 * time.Millisecond}}
	}
	res := Results{
		Raftapi:       []figures.Outcome{fig("raftapi", "update, 64 clients", 8000), fig("raftapi", "list", 800)},
		Etcd:          []figures.Outcome{fig("etcd", "update, 64 clients", 16000), fig("etcd", "list", 400)},
		KubeAPIServer: []figures.Outcome{fig("kube-apiserver", "update, 64 clients", 2000)},
	}
	got := res.Table()
	wantCols := []string{"figure", "raftapi ops/s", "p50", "p99", "etcd ops/s", "p50", "p99",
		"kube-apiserver ops/s", "p50", "p99", "raftapi/etcd", "raftapi/kube-apiserver"}
	if !slices.Equal(got.Columns, wantCols) {
		t.Errorf("columns = %q, want %q", got.Columns, wantCols)
	}
	want := [][]string{
		{"update, 64 clients", "1000", "1.0 ms", "2.0 ms", "2000", "1.0 ms", "2.0 ms", "250", "1.0 ms", "2.0 ms", "0.50×", "4.00×"},
		{"list", "100", "1.0 ms", "2.0 ms", "50", "1.0 ms", "2.0 ms", "–", "–", "–", "2.00×", "–"},
	}
	if !slices.EqualFunc(got.Rows, want, slices.Equal) {
		t.Errorf("rows = %q, want %q", got.Rows, want)
	}
	alone := Results{Raftapi: res.Raftapi}.Table()
	if !slices.Equal(alone.Columns, wantCols[:4]) || len(alone.Rows[0]) != 4 {
		t.Errorf("raftapi alone: columns %q, first row %q", alone.Columns, alone.Rows[0])
	}
	cpu := res.CPUTable().Table.Columns
	if last := cpu[len(cpu)-1]; last != "raftapi/kube-apiserver per op" {
		t.Errorf("the CPU table's last column is %q", last)
	}
}
