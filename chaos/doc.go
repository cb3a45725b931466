// Package chaos is raftapi's Jepsen-style fault harness, shaped like
// etcd's tests/robustness: it starts a cluster of real raftapi processes
// in network namespaces (packages netns and nodes), runs client traffic
// against every node through the public HTTP API (traffic), injects and
// heals faults on a schedule (failpoint), checks the recorded history for
// linearizability and the watch and list guarantees (check), and writes a
// report directory (report). Run ties them together; cmd/raftapi-chaos is
// its command line.
//
// The harness never imports the server's packages: it tests the product
// from outside, as a user would. It does use package pki, which is not
// the server but what any holder of a cluster's token computes: each run
// starts its nodes with a random token and derives from it the cluster CA
// and an admin client certificate for its HTTPS requests.
package chaos
