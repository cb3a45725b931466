package nodes

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"syscall"
	"time"
)

// Restart starts node name's process on its data directory; it does
// nothing when the process runs.
func (c *Cluster) Restart(name string) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil && n.proc.running() {
		return nil
	}
	p, err := spawn(n.logPath(), n.args(c.cfg, c.nodes))
	if err != nil {
		return err
	}
	n.proc, n.paused = p, false
	return nil
}

// Kill sends SIGKILL to node name and waits for it to exit.
func (c *Cluster) Kill(name string) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || !n.proc.running() {
		return fmt.Errorf("nodes: kill %s: not running", name)
	}
	n.proc.kill()
	n.paused = false
	return nil
}

// Pause stops node name with SIGSTOP.
func (c *Cluster) Pause(name string) error { return c.stopCont(name, syscall.SIGSTOP, true) }

// Resume continues node name with SIGCONT.
func (c *Cluster) Resume(name string) error { return c.stopCont(name, syscall.SIGCONT, false) }

func (c *Cluster) stopCont(name string, sig syscall.Signal, paused bool) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil || !n.proc.running() {
		return fmt.Errorf("nodes: %v %s: not running", sig, name)
	}
	n.paused = paused
	return n.proc.signal(sig)
}

// Wipe removes node name's data directory; the node must be stopped.
func (c *Cluster) Wipe(name string) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	if n.Running() {
		return fmt.Errorf("nodes: wipe %s: still running", name)
	}
	if err := os.RemoveAll(n.dataDir()); err != nil {
		return fmt.Errorf("nodes: wipe %s: %w", name, err)
	}
	return nil
}

// Leave asks node name to leave the cluster through its API (it stops
// once the leader has removed it) and waits for the process to exit.
func (c *Cluster) Leave(ctx context.Context, name string) error {
	n, err := c.Node(name)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, n.API+"/raftapi/v1/leave", nil)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("nodes: leave %s: %w", name, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("nodes: leave %s: HTTP %d", name, resp.StatusCode)
	}
	n.mu.Lock()
	p := n.proc
	n.mu.Unlock()
	if p != nil && !p.wait(20*time.Second) {
		return fmt.Errorf("nodes: leave %s: still running 20s after leaving", name)
	}
	return nil
}
