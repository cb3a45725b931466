package procs

import (
	"fmt"
	"net"
	"sync"
)

var (
	usedMu sync.Mutex
	used   = map[string]bool{}
)

// FreeAddr returns a loopback address whose port is free right now. It
// never hands out the same address twice in one process: the kernel may
// offer a port again once the probing listener has closed, before the
// child meant to bind it has started.
func FreeAddr() (string, error) {
	usedMu.Lock()
	defer usedMu.Unlock()
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("procs: free port: %w", err)
		}
		addr := ln.Addr().String()
		ln.Close()
		if !used[addr] {
			used[addr] = true
			return addr, nil
		}
	}
}
