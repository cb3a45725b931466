package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// prepare makes the raftapi binary's path absolute and the run's work
// directory under parent, saying what failed as command; ok false means
// the run cannot go on (exit 1). The caller runs remove when done.
func prepare(command string, raftapi *string, parent string) (dir string, remove func(), ok bool) {
	abs, err := filepath.Abs(*raftapi)
	if err == nil {
		*raftapi = abs
		dir, remove, err = workDir(parent)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "raftapi-bench %s: %v\n", command, err)
		return "", nil, false
	}
	return dir, remove, true
}

// executable returns path made absolute once it names a regular file
// anyone may execute.
func executable(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s: not an executable file", abs)
	}
	return abs, nil
}
