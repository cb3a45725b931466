package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"
)

// TestRun runs the example twice on one data directory: the first run
// starts a new single-node cluster, the second restarts it (on other
// ports) and finds the first run's ConfigMap beside its own.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	for i, wantCount := range []string{"1", "2"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var out bytes.Buffer
		err := run(ctx, &out, dir)
		cancel()
		t.Logf("run %d:\n%s", i+1, out.String())
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		for _, want := range []string{
			`(?m)^node ready$`,
			`(?m)^created configmap default/(greeting-\w+) at resourceVersion (\d+)$`,
			`(?m)^watch: ADDED default/greeting-\w+ at resourceVersion \d+$`,
			`(?m)^get: default/greeting-\w+ message="hello from an embedded raftapi"$`,
			`(?m)^list: ` + wantCount + ` greeting configmap\(s\) in default`,
			`(?m)^node stopped$`,
		} {
			if !regexp.MustCompile(want).Match(out.Bytes()) {
				t.Errorf("run %d: output does not match %s", i+1, want)
			}
		}
	}
}

// TestRunTempDir runs the example as go run ./examples/embed does, with a
// temporary data directory.
func TestRunTempDir(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, ""); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
}
