package procs

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RSS returns the resident set size of the running process in bytes,
// from VmRSS in /proc/PID/status.
func (p *Process) RSS() (int64, error) {
	return rssOf(fmt.Sprintf("/proc/%d/status", p.PID()))
}

// rssOf reads VmRSS from a /proc/PID/status file.
func rssOf(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("procs: rss: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest) // "123456 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("procs: rss: unexpected VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procs: rss: %w", err)
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("procs: rss: %w", err)
	}
	return 0, fmt.Errorf("procs: rss: no VmRSS in %s", path)
}
