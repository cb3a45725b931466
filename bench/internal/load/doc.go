// Package load runs an operation from many concurrent clients for a
// while, closed loop (each client flat out) or paced at a fixed total
// rate, and records every operation's start and latency. Result turns
// the samples into the figures a report prints: operations per second,
// percentiles and time series.
package load
