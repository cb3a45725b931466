// Package clusterbench is make bench-cluster: it starts a 3-node raftapi
// cluster of the real binary, runs the figures against it through the
// HTTP API, stops it, optionally does the same against a 3-member etcd
// cluster and against kube-apiservers over one, and reports them side by
// side with raftapi's ratio to each.
package clusterbench
