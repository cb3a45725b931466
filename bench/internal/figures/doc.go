// Package figures defines the figures of make bench-cluster and runs
// them against a Target: creates, updates and deletes at each client
// count, Most Recent and Any gets, lists of a fixed number of items and
// watch delivery. A Target is one system under test (raftapi through its
// HTTP API, or etcd through its own client); the figures do the same
// work on each, so their numbers can be set side by side.
package figures
