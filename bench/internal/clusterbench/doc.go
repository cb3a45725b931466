// Package clusterbench is make bench-cluster: it starts a 3-node raftapi
// cluster of the real binary, runs the figures against it through the
// HTTP API, stops it, optionally does the same against a 3-member etcd
// cluster, and reports both side by side with their ratio.
package clusterbench
