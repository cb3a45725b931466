// Package procs starts and stops the child processes a benchmark runs:
// raftapi nodes and etcd members. Every process it starts is its own
// process group, dies with the benchmark (SIGKILL on the parent's death),
// and is stopped by Group.StopAll; it never signals a process it did not
// start.
package procs
