package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/raftapi/raftapi/bench/internal/report"
	"github.com/raftapi/raftapi/bench/internal/scalebench"
)

// scaleCmd is make bench-scale.
func scaleCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	cfg := scalebench.Config{Nodes: 3, Log: os.Stderr}
	var out, tmp string
	fs.StringVar(&cfg.Raftapi, "raftapi", "bin/raftapi", "the raftapi binary")
	fs.DurationVar(&cfg.Duration, "duration", 8*time.Second, "length of the watch fan-out and of the paged list")
	fs.IntVar(&cfg.ValueSize, "value-size", 1024, "bytes of every ConfigMap's value")
	fs.IntVar(&cfg.Watchers, "watchers", 1000, "watchers of the watch fan-out, spread over the nodes")
	fs.Float64Var(&cfg.WatchRate, "watch-rate", 1000, "writes per second during the watch fan-out")
	fs.IntVar(&cfg.MaxCutOff, "max-cutoff", -1, "fail when more watchers than this are cut off (-1: report only)")
	fs.IntVar(&cfg.ListObjects, "list-objects", 100000, "ConfigMaps in the listed namespace")
	fs.IntVar(&cfg.PageLimit, "page-limit", 500, "limit of the paged list")
	fs.IntVar(&cfg.Churn, "churn", 10000, "listed objects updated between the Exact list's old and current revisions")
	fs.IntVar(&cfg.Repeat, "repeat", 5, "runs of each single-request list (the median is reported)")
	fs.IntVar(&cfg.RestartObjects, "restart-objects", 1000000, "objects held when a node restarts (the listed ones included)")
	fs.IntVar(&cfg.LoadClients, "load-clients", 128, "clients creating the objects")
	fs.BoolVar(&cfg.CatchUp, "catch-up", true, "add a fourth member at the end and time its catching up")
	fs.StringVar(&out, "out", "bin/bench-report/bench-scale", "directory of report.md, report.json and report.html")
	fs.StringVar(&tmp, "tmpdir", "", "parent of the run's temporary directory (default: the system's)")
	if err := parse(fs, args, map[string]string{"raftapi": "BENCH_RAFTAPI", "duration": "BENCH_DURATION",
		"value-size": "BENCH_VALUE_SIZE", "watchers": "BENCH_WATCHERS", "watch-rate": "BENCH_WATCH_RATE",
		"list-objects": "BENCH_LIST_OBJECTS", "page-limit": "BENCH_PAGE_LIMIT", "churn": "BENCH_CHURN",
		"restart-objects": "BENCH_RESTART_OBJECTS", "load-clients": "BENCH_LOAD_CLIENTS", "out": "BENCH_OUT",
		"tmpdir": "BENCH_TMPDIR"}); err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench scale:", err)
		return 2
	}
	return runScale(ctx, cfg, out, tmp)
}

func runScale(ctx context.Context, cfg scalebench.Config, out, tmp string) int {
	dir, remove, ok := prepare("scale", &cfg.Raftapi, tmp)
	if !ok {
		return 1
	}
	defer remove()
	cfg.WorkDir = dir
	start := time.Now()
	res := scalebench.Run(ctx, cfg)
	rep := report.Report{Title: "make bench-scale", About: scaleAbout(cfg, time.Since(start)),
		Table: res.Table(), Notes: res.Problems, Sections: res.Sections(), Data: res}
	return finish(rep, out, res.Problems)
}

// scaleAbout says what ran, where and how big.
func scaleAbout(cfg scalebench.Config, took time.Duration) []string {
	return []string{
		"Machine: " + report.Machine(),
		fmt.Sprintf("Target: raftapi %s, %d nodes, TLS, default durability", binaryVersion(cfg.Raftapi), cfg.Nodes),
		fmt.Sprintf("Sizes: %d-byte values; %d watchers at %.0f writes/s for %v; %d listed objects, pages of %d, %d updates of churn; %d objects at restart; %d loading clients; run took %v",
			cfg.ValueSize, cfg.Watchers, cfg.WatchRate, cfg.Duration, cfg.ListObjects, cfg.PageLimit, cfg.Churn,
			cfg.RestartObjects, cfg.LoadClients, took.Round(time.Second)),
	}
}
