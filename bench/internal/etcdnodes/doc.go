// Package etcdnodes runs a 3-member etcd cluster beside raftapi's, for
// the same figures: each member is a child process running etcd's
// embed package (this benchmark's own binary, started with its
// etcd-member command), with TLS on the client and peer ports as
// raftapi has, and etcd's default durability (fsync on). The
// certificates come from a CA made for the run.
package etcdnodes
