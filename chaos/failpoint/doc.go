// Package failpoint holds the faults a chaos run injects, each an
// implementation of Failpoint: processes killed (-9) or paused
// (SIGSTOP), network partitions and one-way cuts, packet loss, latency
// on the peer links, membership changes, restarts with a wiped data
// directory and clock jumps. Schedule injects them one at a time and
// heals each before the next.
package failpoint
