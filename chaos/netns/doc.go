// Package netns builds the network a chaos run's nodes live on and breaks
// it on demand: one Linux network namespace per node, joined by veth pairs
// to a bridge the harness creates (with an address in the root namespace,
// so the harness reaches every node's HTTP API), iptables rules inside
// each namespace for partitions and packet loss, and a userspace proxy in
// front of each node's peer port that adds latency (the kernel here has no
// netem).
//
// Everything is named after the run, so leftovers of a crashed run of the
// same name are found and removed before a new one starts, and runs with
// different names do not clash. All of it needs root.
package netns
