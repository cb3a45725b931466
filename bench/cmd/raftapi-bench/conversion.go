package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/raftapi/raftapi/bench/internal/convbench"
	"github.com/raftapi/raftapi/bench/internal/report"
)

// conversionCmd is make bench-conversion.
func conversionCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("conversion", flag.ContinueOnError)
	cfg := convbench.Config{Nodes: 3, Log: os.Stderr}
	var out, tmp string
	var clients int
	fs.StringVar(&cfg.Raftapi, "raftapi", "bin/raftapi", "the raftapi binary")
	fs.DurationVar(&cfg.Figures.Duration, "duration", 5*time.Second, "length of each figure")
	fs.IntVar(&cfg.Rounds, "rounds", 3, "rounds of every figure on each way, each starting with another way (the median is reported)")
	fs.IntVar(&clients, "clients", 64, "clients of the get and list figures")
	fs.IntVar(&cfg.Figures.ValueSize, "value-size", 1024, "bytes of every value written")
	fs.IntVar(&cfg.Figures.ListItems, "list-objects", 1000, "objects the list figure reads at once (and the gets read)")
	fs.IntVar(&cfg.Figures.Watchers, "watchers", 64, "watchers of the watch figure")
	fs.Float64Var(&cfg.Figures.WatchRate, "watch-rate", 200, "writes per second during the watch figure")
	fs.StringVar(&out, "out", "bin/bench-report/bench-conversion", "directory of report.md, report.json and report.html")
	fs.StringVar(&tmp, "tmpdir", "", "parent of the run's temporary directory (default: the system's)")
	if err := parse(fs, args, map[string]string{"raftapi": "BENCH_RAFTAPI", "duration": "BENCH_DURATION",
		"rounds": "BENCH_ROUNDS", "clients": "BENCH_CLIENTS", "value-size": "BENCH_VALUE_SIZE", "list-objects": "BENCH_LIST_OBJECTS",
		"watchers": "BENCH_WATCHERS", "watch-rate": "BENCH_WATCH_RATE", "out": "BENCH_OUT", "tmpdir": "BENCH_TMPDIR"}); err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench conversion:", err)
		return 2
	}
	if clients < 1 || cfg.Rounds < 1 {
		fmt.Fprintln(os.Stderr, "raftapi-bench conversion: -clients and -rounds must be positive")
		return 2
	}
	cfg.Figures.Clients = []int{clients}
	cfg.Figures.Log = os.Stderr
	return runConversion(ctx, cfg, out, tmp)
}

func runConversion(ctx context.Context, cfg convbench.Config, out, tmp string) int {
	dir, remove, ok := prepare("conversion", &cfg.Raftapi, tmp)
	if !ok {
		return 1
	}
	defer remove()
	cfg.WorkDir = dir
	start := time.Now()
	res, err := convbench.Run(ctx, cfg)
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench conversion: interrupted")
		return 130
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench conversion:", err)
		return 1
	}
	rep := report.Report{Title: "make bench-conversion", About: conversionAbout(cfg, time.Since(start)),
		Table: res.Table(), Notes: res.Notes(), Sections: res.Sections(), Data: res}
	return finish(rep, out, res.Problems())
}

// conversionAbout says what ran, where and how big.
func conversionAbout(cfg convbench.Config, took time.Duration) []string {
	f := cfg.Figures
	return []string{
		"Machine: " + report.Machine(),
		fmt.Sprintf("Target: raftapi %s, %d nodes, TLS, default durability", binaryVersion(cfg.Raftapi), cfg.Nodes),
		"Ways: the storage version v1; v2 of a CRD converting with None (apiVersion only); v2 of a CRD converting with a ConversionPolicy (one field renamed)",
		fmt.Sprintf("Figures: %v each, %d clients, %d-byte values, lists of %d objects, %d watchers at %.0f writes/s; median of %d rounds, the ways in turn; run took %v",
			f.Duration, f.Clients[0], f.ValueSize, f.ListItems, f.Watchers, f.WatchRate, cfg.Rounds, took.Round(time.Second)),
	}
}
