package report

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes the machine a run is on: cores, memory, kernel, Go.
func Machine() string {
	s := fmt.Sprintf("%d cores", runtime.NumCPU())
	if kb := memTotalKB(); kb > 0 {
		s += fmt.Sprintf(", %.1f GiB", float64(kb)/(1<<20))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		s += ", Linux " + strings.TrimSpace(string(b))
	}
	return s + ", " + runtime.Version()
}

// memTotalKB reads MemTotal from /proc/meminfo, 0 when it cannot.
func memTotalKB() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
