package procs

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident memory, from /proc/PID/status.
type Memory struct {
	// RSS is VmRSS: every resident page of the process.
	RSS int64 `json:"rss_bytes"`
	// Anon is RssAnon: its heap and stacks; File is RssFile: pages of
	// files it maps (a database file mapped into memory) that are
	// resident now, which the kernel may drop and read again.
	Anon int64 `json:"rss_anon_bytes"`
	File int64 `json:"rss_file_bytes"`
}

// Memory returns the running process's resident memory.
func (p *Process) Memory() (Memory, error) {
	return memoryOf(fmt.Sprintf("/proc/%d/status", p.PID()))
}

// memoryOf reads VmRSS, RssAnon and RssFile from a /proc/PID/status file.
func memoryOf(path string) (Memory, error) {
	var m Memory
	f, err := os.Open(path)
	if err != nil {
		return m, fmt.Errorf("procs: memory: %w", err)
	}
	defer f.Close()
	fields := map[string]*int64{"VmRSS:": &m.RSS, "RssAnon:": &m.Anon, "RssFile:": &m.File}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, _ := strings.Cut(sc.Text(), "\t")
		dst, ok := fields[name]
		if !ok {
			continue
		}
		kb, err := kilobytes(rest)
		if err != nil {
			return m, fmt.Errorf("procs: memory: %s %w", name, err)
		}
		*dst = kb * 1024
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("procs: memory: %w", err)
	}
	if m.RSS == 0 {
		return m, fmt.Errorf("procs: memory: no VmRSS in %s", path)
	}
	return m, nil
}

// kilobytes parses "   123456 kB".
func kilobytes(s string) (int64, error) {
	f := strings.Fields(s)
	if len(f) != 2 || f[1] != "kB" {
		return 0, fmt.Errorf("unexpected value %q", s)
	}
	return strconv.ParseInt(f[0], 10, 64)
}
