// Package cluster runs one raftapi node: the replicated store and the HTTP
// API wired together, with health endpoints. It is the embeddable entry
// point: an appliance starts a node in-process with Start and stops it with
// Node.Stop; the raftapi serve command does exactly that.
package cluster
