package load

import (
	"slices"
	"time"
)

// Bucket is a slice of a run's time.
type Bucket struct {
	// At is the bucket's start from the start of the run.
	At time.Duration `json:"at_ns"`
	// OpsPerSec is the rate of the successful operations started in it.
	OpsPerSec float64       `json:"ops_per_sec"`
	P50       time.Duration `json:"p50_ns"`
	P99       time.Duration `json:"p99_ns"`
	Errors    int           `json:"errors,omitempty"`
}

// Series cuts the run into buckets of width by start time, for the
// charts of latency and throughput over time.
func (r *Result) Series(width time.Duration) []Bucket {
	if width <= 0 || r.Elapsed <= 0 {
		return nil
	}
	// Whole buckets only: the tail shorter than width, where the last
	// operations finish and few start, joins the last one.
	n := max(1, int(r.Elapsed/width))
	lats := make([][]time.Duration, n)
	errs := make([]int, n)
	for _, s := range r.Samples {
		i := min(int(s.At/width), n-1)
		if s.Err {
			errs[i]++
			continue
		}
		lats[i] = append(lats[i], s.Latency)
	}
	out := make([]Bucket, 0, n)
	for i, l := range lats {
		slices.Sort(l)
		out = append(out, Bucket{At: time.Duration(i) * width, OpsPerSec: float64(len(l)) / width.Seconds(),
			P50: Percentile(l, 0.50), P99: Percentile(l, 0.99), Errors: errs[i]})
	}
	return out
}
