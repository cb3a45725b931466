package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/raftapi/raftapi/bench/internal/clusterbench"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// clusterCmd is make bench-cluster.
func clusterCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	cfg := clusterbench.Config{Nodes: 3, Log: os.Stderr}
	clients := intList{1, 64}
	var vs, out, tmp string
	fs.StringVar(&cfg.Raftapi, "raftapi", "bin/raftapi", "the raftapi binary")
	fs.StringVar(&vs, "vs", "", `targets to compare with, comma-separated: "etcd" (a 3-member etcd cluster), "kube-apiserver" (one beside each member of another)`)
	fs.StringVar(&cfg.KubeAPIServer, "kube-apiserver", "bin/kube-apiserver", "the kube-apiserver binary (make kube-apiserver), for -vs kube-apiserver")
	fs.DurationVar(&cfg.Figures.Duration, "duration", 8*time.Second, "length of each figure")
	fs.Var(&clients, "clients", "client counts of the write figures; the read figures use the largest")
	fs.IntVar(&cfg.Figures.ValueSize, "value-size", 1024, "bytes of every value written")
	fs.IntVar(&cfg.Figures.ListItems, "list-items", 100, "keys the list figure reads at once")
	fs.IntVar(&cfg.Figures.Watchers, "watchers", 0, "watchers of the watch figure (0: the largest client count)")
	fs.Float64Var(&cfg.Figures.WatchRate, "watch-rate", 200, "writes per second during the watch figure")
	fs.StringVar(&out, "out", "bin/bench-report/bench-cluster", "directory of report.md, report.json and report.html")
	fs.StringVar(&tmp, "tmpdir", "", "parent of the run's temporary directory (default: the system's)")
	if err := parse(fs, args, map[string]string{"raftapi": "BENCH_RAFTAPI", "kube-apiserver": "BENCH_KUBE_APISERVER", "vs": "BENCH_VS", "duration": "BENCH_DURATION",
		"clients": "BENCH_CLIENTS", "value-size": "BENCH_VALUE_SIZE", "watchers": "BENCH_WATCHERS",
		"watch-rate": "BENCH_WATCH_RATE", "out": "BENCH_OUT", "tmpdir": "BENCH_TMPDIR"}); err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench cluster:", err)
		return 2
	}
	for name := range strings.SplitSeq(vs, ",") {
		switch strings.TrimSpace(name) {
		case "":
		case "etcd":
			cfg.VsEtcd = true
		case "kube-apiserver":
			cfg.VsKubeAPIServer = true
		default:
			fmt.Fprintf(os.Stderr, "raftapi-bench cluster: -vs %q: only etcd and kube-apiserver are known\n", name)
			return 2
		}
	}
	cfg.Figures.Clients = slices.Sorted(slices.Values(clients))
	if cfg.Figures.Watchers == 0 {
		cfg.Figures.Watchers = slices.Max(cfg.Figures.Clients)
	}
	cfg.Figures.Log = os.Stderr
	return runCluster(ctx, cfg, out, tmp)
}

func runCluster(ctx context.Context, cfg clusterbench.Config, out, tmp string) int {
	var err error
	if cfg.Self, err = os.Executable(); err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench cluster:", err)
		return 1
	}
	if cfg.VsKubeAPIServer {
		if cfg.KubeAPIServer, err = executable(cfg.KubeAPIServer); err != nil {
			fmt.Fprintf(os.Stderr, "raftapi-bench cluster: -kube-apiserver: %v (make kube-apiserver builds it)\n", err)
			return 2
		}
	}
	dir, remove, ok := prepare("cluster", &cfg.Raftapi, tmp)
	if !ok {
		return 1
	}
	defer remove()
	cfg.WorkDir = dir
	start := time.Now()
	res, err := clusterbench.Run(ctx, cfg)
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench cluster: interrupted")
		return 130
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench cluster:", err)
		return 1
	}
	rep := report.Report{Title: "make bench-cluster", About: clusterAbout(cfg, time.Since(start)),
		Table: res.Table(), Notes: res.Notes(), More: []report.Titled{res.CPUTable()}, Sections: res.Sections(), Data: res}
	return finish(rep, out, res.Problems())
}

// clusterAbout says what ran, where and how big.
func clusterAbout(cfg clusterbench.Config, took time.Duration) []string {
	f := cfg.Figures
	targets := "raftapi " + binaryVersion(cfg.Raftapi)
	var vs []string
	if cfg.VsEtcd {
		vs = append(vs, "etcd "+etcdVersion())
	}
	if cfg.VsKubeAPIServer {
		vs = append(vs, kubeAPIServerVersion(cfg.KubeAPIServer)+" over etcd "+etcdVersion())
	}
	if len(vs) > 0 {
		targets += " vs " + strings.Join(vs, ", ")
	}
	var cl []string
	for _, n := range f.Clients {
		cl = append(cl, fmt.Sprint(n))
	}
	return []string{
		"Machine: " + report.Machine(),
		fmt.Sprintf("Targets: %s, %d members each, TLS, default durability", targets, cfg.Nodes),
		fmt.Sprintf("Figures: %v each, %s clients, %d-byte values, lists of %d items, %d watchers at %.0f writes/s; run took %v",
			f.Duration, strings.Join(cl, " and "), f.ValueSize, f.ListItems, f.Watchers, f.WatchRate, took.Round(time.Second)),
	}
}
