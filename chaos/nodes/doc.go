// Package nodes runs the cluster under test: one real raftapi process per
// node, each in its own network namespace (package netns), started with
// gossip membership so nodes can leave, lose their data and be re-added.
// Each node's peer port is fronted by a latency proxy the harness owns;
// other nodes dial the proxy. Every node gets the run's token (--token),
// from which all of them, a wiped one too, derive the same CAs. The
// harness talks to the nodes only through their public API, over HTTPS
// with a client certificate, and operating-system signals.
package nodes
