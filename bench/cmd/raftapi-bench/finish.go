package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"

	"github.com/raftapi/raftapi/bench/internal/report"
)

// finish prints the report's markdown, writes its files into out and
// returns the exit code: 1 when a figure failed.
func finish(rep report.Report, out string, problems []string) int {
	fmt.Print(rep.Markdown())
	if err := rep.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, "raftapi-bench:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "report: %s/report.html\n", out)
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "raftapi-bench: %d figures failed:\n  %s\n", len(problems), strings.Join(problems, "\n  "))
		return 1
	}
	return 0
}

// binaryVersion is the version and commit `raftapi version` prints.
func binaryVersion(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return "(version unknown)"
	}
	var fields []string
	for line := range strings.Lines(string(out)) {
		k, v, ok := strings.Cut(line, ":")
		if ok && (k == "version" || k == "commit") {
			fields = append(fields, k+" "+strings.TrimSpace(v))
		}
	}
	return "(" + strings.Join(fields, ", ") + ")"
}

// kubeAPIServerVersion is what `kube-apiserver --version` prints:
// "Kubernetes v1.X.Y".
func kubeAPIServerVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "kube-apiserver (version unknown)"
	}
	return "kube-apiserver (" + strings.TrimSpace(string(out)) + ")"
}

// etcdVersion is the version of etcd's server module built in.
func etcdVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "go.etcd.io/etcd/server/v3" {
				return d.Version
			}
		}
	}
	return "(version unknown)"
}
