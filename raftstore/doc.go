// Package raftstore is raftapi's replicated store: a hashicorp/raft node
// whose state machine is package fsm, with the read consistency levels,
// paginated lists and watch feed the API layer serves.
//
// Writes from any node are proposed on the leader (followers forward them
// over the peer address) and come back as typed results. Reads are served
// from the local state at one of four consistency levels (see
// Consistency). Watches are fed from the node's own committed entries.
//
// One peer address carries all node-to-node traffic: the first byte of each
// connection selects raft or the peer RPC service (forwarded writes, read
// index).
package raftstore
