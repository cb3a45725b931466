package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Stamped at build time by the Makefile:
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=<hash>"
//
// A binary built otherwise reports what the Go toolchain recorded: the
// module version and the VCS revision, when known.
var (
	version string
	commit  string
)

// versionInfo is what "raftapi version" reports.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && v.Commit == "" {
				v.Commit = s.Value
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	return v
}

// versionLine is the one line --version prints.
func versionLine() string {
	v := buildVersion()
	return fmt.Sprintf("raftapi %s (commit %s, %s, %s)", v.Version, v.Commit, v.GoVersion, v.Platform)
}

func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Example: `  raftapi version
  raftapi version -o json`,
		Args: noArgs,
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	completeValues(cmd, "output", "text", "json")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		v := buildVersion()
		switch output {
		case "json":
			return writeJSON(cmd.OutOrStdout(), v)
		case "text":
			fmt.Fprintf(cmd.OutOrStdout(), "version:   %s\ncommit:    %s\ngo:        %s\nplatform:  %s\n", v.Version, v.Commit, v.GoVersion, v.Platform)
			return nil
		}
		return usagef("--output: %q is neither text nor json", output)
	}
	return cmd
}
