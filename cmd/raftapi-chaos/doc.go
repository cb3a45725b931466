// Command raftapi-chaos runs raftapi's fault harness (package chaos): a
// cluster of real raftapi processes in network namespaces, client traffic,
// faults on a schedule, and checkers over the recorded history. It exits
// 0 only when every checker passes.
//
//	raftapi-chaos --duration 10m --faults all --out /tmp/chaos
//	raftapi-chaos check /tmp/chaos/history.jsonl
package main
