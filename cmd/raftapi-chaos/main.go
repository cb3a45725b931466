package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/raftapi/raftapi/chaos"
	"github.com/raftapi/raftapi/chaos/failpoint"
	"github.com/raftapi/raftapi/chaos/netns"
)

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "check" {
		err = recheck(os.Args[2:])
	} else {
		err = runCmd(os.Args[1:])
	}
	var exit exitError
	switch {
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case err != nil:
		fmt.Fprintln(os.Stderr, "raftapi-chaos:", err)
		os.Exit(2)
	}
}

// exitError ends the command with a status and no further message.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func runCmd(args []string) error {
	cfg, skip, err := parseFlags(args)
	if err != nil {
		return err
	}
	if perr := netns.Preflight(); perr != nil {
		if skip {
			fmt.Printf("raftapi-chaos: SKIPPED: this machine cannot run the fault harness: %v\n", perr)
			return nil
		}
		return perr
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	started := time.Now()
	s, err := chaos.Run(ctx, cfg)
	if err != nil {
		return err
	}
	s.WriteText(os.Stdout)
	fmt.Printf("\nreport: %s (took %s)\n", filepath.Join(cfg.Out, "index.html"), time.Since(started).Round(time.Second))
	if !s.Passed {
		return exitError(1)
	}
	return nil
}

func parseFlags(args []string) (chaos.Config, bool, error) {
	cfg := chaos.Defaults()
	fs := flag.NewFlagSet("raftapi-chaos", flag.ContinueOnError)
	fs.StringVar(&cfg.Binary, "binary", "bin/raftapi", "the raftapi binary under test")
	fs.StringVar(&cfg.Name, "name", cfg.Name, "run name: names the network namespaces and bridge (leftovers of a crashed run of the same name are removed)")
	fs.IntVar(&cfg.Nodes, "nodes", cfg.Nodes, "cluster size: 3 or 5")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long traffic runs")
	fs.DurationVar(&cfg.Quiet, "quiet", cfg.Quiet, "fault-free period at the end of the run")
	fs.StringVar(&cfg.Faults, "faults", cfg.Faults, "comma-separated faults or groups: all, kill, pause, partition, loss, latency, membership, wipe, clock, or one of "+strings.Join(failpoint.Names(), ", "))
	fs.BoolVar(&cfg.ClockJumps, "clock-jumps", false, "allow the clock fault to step this machine's wall clock (dedicated machines only)")
	every := fs.String("fault-every", "5s-10s", "random pause before each fault: min-max")
	hold := fs.String("fault-hold", "5s-10s", "random length of each fault: min-max")
	fs.StringVar(&cfg.Workloads, "workloads", cfg.Workloads, "comma-separated workloads: register, list, watch")
	fs.StringVar(&cfg.Resources, "resources", cfg.Resources, "comma-separated register resources every workload uses: configmaps, chaosobjects (a custom resource whose definition the run creates first)")
	fs.IntVar(&cfg.RegisterClients, "register-clients", cfg.RegisterClients, "concurrent register clients")
	fs.IntVar(&cfg.ListClients, "list-clients", cfg.ListClients, "concurrent list clients")
	fs.IntVar(&cfg.Watchers, "watchers", cfg.Watchers, "concurrent watchers (plain, with bookmarks, with initial events, in turn)")
	fs.Int64Var(&cfg.MaxOps, "max-ops", 0, "bound on register and list operations (0: none)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request timeout; a write that runs out of it has an unknown outcome")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "random seed (0: from the clock)")
	fs.StringVar(&cfg.NodeLogLevel, "node-log-level", cfg.NodeLogLevel, "the nodes' --log-level: debug, info, warn or error")
	fs.StringVar(&cfg.Out, "out", cfg.Out, "report directory (history, results, HTML, node logs)")
	tolerate := fs.String("tolerate", "", "comma-separated anomaly kinds to report without failing (known issues tracked in chaos/README.md)")
	skip := fs.Bool("skip-unprivileged", false, "exit 0 with a message when the machine lacks root or network namespaces")
	if err := fs.Parse(args); err != nil {
		return cfg, false, err
	}
	var err error
	if cfg.Between, err = parseRange(*every); err != nil {
		return cfg, false, fmt.Errorf("--fault-every: %w", err)
	}
	if cfg.Hold, err = parseRange(*hold); err != nil {
		return cfg, false, fmt.Errorf("--fault-hold: %w", err)
	}
	if *tolerate != "" {
		cfg.Tolerate = strings.Split(*tolerate, ",")
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if cfg.Binary, err = filepath.Abs(cfg.Binary); err != nil {
		return cfg, false, err
	}
	if cfg.Out, err = filepath.Abs(cfg.Out); err != nil {
		return cfg, false, err
	}
	cfg.Log = func(format string, args ...any) {
		fmt.Printf("%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	return cfg, *skip, nil
}

// parseRange parses "5s-10s" (or a single duration).
func parseRange(s string) ([2]time.Duration, error) {
	lo, hi, found := strings.Cut(s, "-")
	if !found {
		hi = lo
	}
	a, err := time.ParseDuration(lo)
	if err != nil {
		return [2]time.Duration{}, err
	}
	b, err := time.ParseDuration(hi)
	if err != nil || b < a {
		return [2]time.Duration{}, fmt.Errorf("bad range %q", s)
	}
	return [2]time.Duration{a, b}, nil
}
