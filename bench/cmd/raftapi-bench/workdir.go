package main

import (
	"fmt"
	"os"
)

// workDir makes the run's temporary directory under parent ("" for the
// system's) and returns it with the function removing it.
func workDir(parent string) (string, func(), error) {
	dir, err := os.MkdirTemp(parent, "raftapi-bench-")
	if err != nil {
		return "", nil, fmt.Errorf("work directory: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
