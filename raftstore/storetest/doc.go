// Package storetest is the storage conformance suite of raftapi and the
// in-process cluster it runs on.
//
// NewCluster starts n raftstore nodes in one process, talking over real
// loopback TCP through a fault-injecting network (Isolate, Heal) and able
// to stop and restart nodes on their data directories. The Run* functions
// check the storage semantics every implementation must keep; raftstore's
// tests run them against 1-node and 3-node clusters.
package storetest
