// Package report writes what a chaos run leaves behind, one directory
// per run: the history as JSON lines (history.jsonl), the checker results
// with the first anomalies explained (results.json, summary.txt), and an
// HTML page (index.html) with the pictures to look at first: latency
// over time per operation type with the fault windows shaded, and a
// timeline of every node's raft role.
package report
