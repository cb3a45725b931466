package procs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture's ABI.
const userHZ = 100

// CPUTime returns the CPU time, user and system, that the process has
// used so far, all its threads together; once it has exited, all it used.
func (p *Process) CPUTime() (time.Duration, error) {
	if !p.Running() {
		return p.exitedCPUTime(), nil
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.PID()))
	if err != nil {
		// It may have exited just now: then its exit status tells.
		select {
		case <-p.exited:
			return p.exitedCPUTime(), nil
		case <-time.After(time.Second):
			return 0, fmt.Errorf("procs: cpu time: %w", err)
		}
	}
	return cpuTimeOf(string(data))
}

// exitedCPUTime is the CPU time of a process that has exited.
func (p *Process) exitedCPUTime() time.Duration {
	ps := p.cmd.ProcessState
	return ps.UserTime() + ps.SystemTime()
}

// cpuTimeOf reads utime and stime, the 14th and 15th fields, from a
// /proc/PID/stat line. The second field, the command name in
// parentheses, may hold spaces: fields are counted after its last ')'.
func cpuTimeOf(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("procs: cpu time: malformed stat %q", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("procs: cpu time: short stat %q", stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procs: cpu time: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// CPUTime returns the CPU time the group's processes have used so far,
// those that have exited included, so that it never goes back.
func (g *Group) CPUTime() time.Duration {
	g.mu.Lock()
	procs := append([]*Process(nil), g.procs...)
	g.mu.Unlock()
	var total time.Duration
	for _, p := range procs {
		if d, err := p.CPUTime(); err == nil {
			total += d
		}
	}
	return total
}

// SelfCPUTime returns the CPU time, user and system, this process has
// used so far.
func SelfCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
