package chaos

import (
	"fmt"
	"strings"
	"time"

	"github.com/raftapi/raftapi/chaos/traffic"
)

// Config describes one run.
type Config struct {
	// Binary is the raftapi binary under test.
	Binary string
	// Name names the run's network namespaces and bridge; runs with
	// different names can go on side by side.
	Name string
	// Nodes is the cluster size, 3 or 5.
	Nodes int
	// Duration is how long traffic runs; faults stop Quiet before its end.
	Duration, Quiet time.Duration
	// Faults is the comma-separated list of failpoints (see
	// failpoint.Parse); ClockJumps allows stepping the machine's clock.
	Faults     string
	ClockJumps bool
	// Between and Hold bound the pause before each fault and how long
	// it lasts.
	Between, Hold [2]time.Duration
	// Workloads is a comma-separated subset of register, list, watch.
	Workloads string
	// Resources is a comma-separated subset of configmaps and
	// chaosobjects, the register resources every workload uses; a run
	// with chaosobjects first creates their CustomResourceDefinition.
	Resources string
	// resources is Resources parsed by validate.
	resources []traffic.Resource
	// RegisterClients, ListClients and Watchers size the workloads;
	// MaxOps bounds the register and list operations.
	RegisterClients, ListClients, Watchers int
	MaxOps                                 int64
	// Timeout bounds one request; a write that runs out of it is unknown.
	Timeout time.Duration
	Seed    uint64
	// Tolerate lists anomaly kinds that are reported without failing the
	// run: known issues tracked in chaos/README.md.
	Tolerate []string
	// NodeLogLevel is the nodes' --log-level (debug, info, warn, error).
	NodeLogLevel string
	// Out is the report directory; node data and logs go under it too.
	Out string
	// Log receives progress lines.
	Log func(format string, args ...any)
}

// Defaults returns a configuration for a run of d with every fault.
func Defaults() Config {
	return Config{Name: "chaos", Nodes: 3, Duration: 2 * time.Minute, Quiet: 10 * time.Second, Faults: "all",
		Between: [2]time.Duration{5 * time.Second, 10 * time.Second}, Hold: [2]time.Duration{5 * time.Second, 10 * time.Second},
		Workloads: "register,list,watch", Resources: "configmaps,chaosobjects", RegisterClients: 6, ListClients: 2, Watchers: 6, Timeout: 8 * time.Second,
		NodeLogLevel: "info", Out: "chaos-report", Log: func(string, ...any) {}}
}

// validate checks the configuration and applies the workload selection.
func (c *Config) validate() error {
	if c.Nodes != 3 && c.Nodes != 5 {
		return fmt.Errorf("chaos: %d nodes: run 3 or 5", c.Nodes)
	}
	if c.Quiet >= c.Duration {
		return fmt.Errorf("chaos: quiet period %s is not shorter than the run %s", c.Quiet, c.Duration)
	}
	on := map[string]bool{}
	for _, w := range strings.Split(c.Workloads, ",") {
		w = strings.TrimSpace(w)
		if w != "register" && w != "list" && w != "watch" {
			return fmt.Errorf("chaos: unknown workload %q (register, list, watch)", w)
		}
		on[w] = true
	}
	if !on["register"] {
		c.RegisterClients = 0
	}
	if !on["list"] {
		c.ListClients = 0
	}
	if !on["watch"] {
		c.Watchers = 0
	}
	var err error
	if c.resources, err = traffic.ParseResources(c.Resources); err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	return nil
}
