// Package raftnodes runs a static cluster of real raftapi processes on
// loopback, as README's Running section starts one by hand: the same
// --token on every node, --initial-cluster, default durability. It reads
// the admin kubeconfig a node writes into its data directory for the
// clients' TLS, waits on /readyz, restarts nodes, adds members and reads
// each node's resident memory.
package raftnodes
