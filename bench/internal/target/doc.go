// Package target adapts the systems under test to figures.Target:
// raftapi, and kube-apiserver over etcd, through their Kubernetes HTTP
// API (ConfigMaps holding the value, one namespace per space), and etcd
// through its own client (raw keys under a prefix per space). Client c
// of a figure talks to member c mod 3 on each, and so does watcher w,
// the members in the order the caller gives them.
package target
