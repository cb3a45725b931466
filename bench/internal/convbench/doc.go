// Package convbench is make bench-conversion: what it costs to serve a
// custom resource through a version other than its storage version. One
// 3-node raftapi cluster holds two CRDs of two versions each, v1 stored:
// one converting with the strategy None (only apiVersion changes), one
// with a raftapi.io/v1 ConversionPolicy that renames a field. The read
// figures — Most Recent gets, a list of every object of a namespace,
// watch delivery — run through the storage version, through the other
// version with None and through the other version with the policy, each
// figure on the three in turn, and the table sets each converting
// version's throughput against the storage version's.
package convbench
