package cluster

import (
	"log/slog"
	"runtime/pprof"
	"strings"
	"time"
)

// slowStopPhase is how long a phase of Stop may take before it is
// logged: a node that takes long to stop is one an operator (or the fault
// harness, which kills it after a while) needs to hear about.
const slowStopPhase = 2 * time.Second

// stuckStopPhase is how long a phase of Stop may go on before the node
// logs every goroutine's stack: a stop that hangs is a bug, and the
// process is usually killed soon after (the fault harness waits 20 s, a
// service manager about 90 s), taking with it the only evidence of what
// it waited for.
const stuckStopPhase = 10 * time.Second

// stopPhases times the phases of a node's Stop.
type stopPhases struct {
	log         *slog.Logger
	slow, stuck time.Duration
}

func newStopPhases(log *slog.Logger) *stopPhases {
	return &stopPhases{log: log, slow: slowStopPhase, stuck: stuckStopPhase}
}

// run runs one phase and returns its error. A phase that takes longer
// than slow is logged at warning level when it ends; one still running
// after stuck is logged at once, with the stacks of all goroutines.
func (p *stopPhases) run(phase string, fn func() error) error {
	start := time.Now()
	stuck := time.AfterFunc(p.stuck, func() {
		p.log.Warn("stopping is stuck", "waiting-for", phase, "since", time.Since(start).Round(time.Millisecond), "goroutines", goroutineStacks())
	})
	err := fn()
	stuck.Stop()
	if d := time.Since(start); d > p.slow {
		p.log.Warn("stopping took long", "waited-for", phase, "took", d.Round(time.Millisecond))
	}
	return err
}

// goroutineStacks is the stack of every goroutine, as a panic prints them.
func goroutineStacks() string {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return b.String()
}
