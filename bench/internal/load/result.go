package load

import (
	"slices"
	"time"
)

// Sample is one operation.
type Sample struct {
	// At is when the operation started, from the start of the run.
	At time.Duration
	// Latency is how long it took.
	Latency time.Duration
	// Err is true when it failed.
	Err bool
}

// Result is what a run recorded.
type Result struct {
	// Samples are every operation, by start time.
	Samples []Sample
	// Elapsed is the run's length: its Duration and the last operations'
	// tail, or up to the last operation when clients ran out of work.
	Elapsed time.Duration
	// Ended is true when a client ran out of work before the end.
	Ended bool
	// FirstErr is the first failure's message.
	FirstErr string
	// ServerCPU and LoadGenCPU are the CPU time the servers and the load
	// generator used during the run (zero without Options.CPU).
	ServerCPU, LoadGenCPU time.Duration
}

// Summary is a run in a few numbers.
type Summary struct {
	Ops       int           `json:"ops"`
	Errors    int           `json:"errors"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	OpsPerSec float64       `json:"ops_per_sec"`
	P50       time.Duration `json:"p50_ns"`
	P99       time.Duration `json:"p99_ns"`
	Max       time.Duration `json:"max_ns"`
	Ended     bool          `json:"ended_early,omitempty"`
	FirstErr  string        `json:"first_error,omitempty"`
	// ServerCPU and LoadGenCPU are the CPU time used during the run.
	ServerCPU  time.Duration `json:"server_cpu_ns,omitempty"`
	LoadGenCPU time.Duration `json:"loadgen_cpu_ns,omitempty"`
}

// Summary counts the successful operations per second of the run and
// their latency percentiles; failures are counted apart.
func (r *Result) Summary() Summary {
	s := Summary{Elapsed: r.Elapsed, Ended: r.Ended, FirstErr: r.FirstErr, ServerCPU: r.ServerCPU, LoadGenCPU: r.LoadGenCPU}
	lat := make([]time.Duration, 0, len(r.Samples))
	for _, x := range r.Samples {
		if x.Err {
			s.Errors++
			continue
		}
		lat = append(lat, x.Latency)
	}
	s.Ops = len(lat)
	if r.Elapsed > 0 {
		s.OpsPerSec = float64(s.Ops) / r.Elapsed.Seconds()
	}
	slices.Sort(lat)
	s.P50, s.P99 = Percentile(lat, 0.50), Percentile(lat, 0.99)
	if len(lat) > 0 {
		s.Max = lat[len(lat)-1]
	}
	return s
}

// Percentile returns the p-quantile (0 < p <= 1) of sorted latencies by
// the nearest-rank method, 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}
