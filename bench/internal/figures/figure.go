package figures

import (
	"fmt"
	"time"

	"github.com/raftapi/raftapi/bench/internal/load"
)

// Outcome is one figure measured on one target.
type Outcome struct {
	// Figure is the figure's title, the same for every target.
	Figure string `json:"figure"`
	// Target names the system measured.
	Target  string       `json:"target"`
	Summary load.Summary `json:"summary"`
	// Series is the figure over time, for the charts.
	Series []load.Bucket `json:"series,omitempty"`
	// Watch is set for the watch figure: the delivery latencies are in
	// Summary, these are the counts.
	Watch *WatchCounts `json:"watch,omitempty"`
	// Note says what else a reader should know (ran out of keys, ...).
	Note string `json:"note,omitempty"`
}

// Problems lists what makes the outcome a failed measurement: errors, no
// operations, lost or cut-off watch events.
func (o Outcome) Problems() []string {
	var out []string
	if o.Summary.Errors > 0 {
		out = append(out, fmt.Sprintf("%d errors (first: %s)", o.Summary.Errors, o.Summary.FirstErr))
	}
	if o.Summary.Ops == 0 {
		out = append(out, "no successful operations")
	}
	if w := o.Watch; w != nil {
		if w.CutOff > 0 {
			out = append(out, fmt.Sprintf("%d of %d watchers cut off (first: %s)", w.CutOff, w.Watchers, w.FirstCut))
		}
		if w.Lost > 0 {
			out = append(out, fmt.Sprintf("%d events never reached a watcher that stayed open", w.Lost))
		}
	}
	return out
}

// buckets is how many points a figure's time series has.
const buckets = 40

func outcome(figure, target string, res *load.Result) Outcome {
	o := Outcome{Figure: figure, Target: target, Summary: res.Summary()}
	o.Series = res.Series(max(res.Elapsed/buckets, time.Millisecond))
	return o
}

func clientsTitle(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}
