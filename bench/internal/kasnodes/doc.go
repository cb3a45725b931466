// Package kasnodes runs kube-apiserver, unmodified, as kubeadm stacks it:
// a 3-member etcd cluster (etcdnodes) and one kube-apiserver beside each
// member, talking to that member only, over TLS with client certificates.
// Each kube-apiserver serves TLS on loopback with a certificate of the
// run's CA, authenticates client certificates of that CA and authorizes
// with Node,RBAC; the benchmark's client is an admin of system:masters,
// as raftapi's admin kubeconfig is. Everything else is kube-apiserver's
// default: the watch cache, priority and fairness, the admission plugins.
package kasnodes
