package netns

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// run runs a command line and returns its combined output, failing with
// it.
func run(argv ...string) (string, error) {
	name, args := argv[0], argv[1:]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("netns: %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// runAll runs commands in order and stops at the first failure.
func runAll(cmds [][]string) error {
	for _, c := range cmds {
		if _, err := run(c...); err != nil {
			return err
		}
	}
	return nil
}

// inNS returns the command line running args inside namespace ns.
func inNS(ns string, args ...string) []string {
	return append([]string{"ip", "netns", "exec", ns}, args...)
}
