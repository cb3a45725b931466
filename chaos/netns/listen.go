package netns

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// ListenIn opens a TCP listener on addr inside namespace ns. A socket
// belongs to the namespace it was created in, so the harness can serve a
// node's namespace from its own process: the listening thread enters ns,
// creates the socket and returns. The work runs on a goroutine of its
// own: should the thread fail to return to its namespace, it ends with
// the goroutine instead of serving others from the wrong namespace.
func ListenIn(ns, addr string) (net.Listener, error) {
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		ln, back, err := listenIn(ns, addr)
		if back {
			runtime.UnlockOSThread()
		}
		done <- result{ln, err}
	}()
	r := <-done
	return r.ln, r.err
}

// listenIn does ListenIn's work on a locked thread; back reports whether
// the thread is in its own namespace again.
func listenIn(ns, addr string) (ln net.Listener, back bool, err error) {
	self, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	if err != nil {
		return nil, true, fmt.Errorf("netns: own namespace: %w", err)
	}
	defer self.Close()
	target, err := os.Open(filepath.Join("/var/run/netns", ns))
	if err != nil {
		return nil, true, fmt.Errorf("netns: namespace %s: %w", ns, err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, true, fmt.Errorf("netns: enter %s: %w", ns, err)
	}
	ln, err = net.Listen("tcp", addr)
	back = unix.Setns(int(self.Fd()), unix.CLONE_NEWNET) == nil
	return ln, back, err
}
