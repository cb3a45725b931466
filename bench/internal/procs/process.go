package procs

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is one running child process.
type Process struct {
	// Name labels the process in messages.
	Name    string
	cmd     *exec.Cmd
	started time.Time
	exited  chan struct{} // closed once it has exited
	err     error         // the exit status, set before exited closes
}

// start runs argv with its output appended to logPath.
func start(name, logPath string, argv []string) (*Process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("procs: %s: log: %w", name, err)
	}
	p := &Process{Name: name, cmd: exec.Command(argv[0], argv[1:]...), exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	// Its own process group keeps the terminal's Ctrl-C for the benchmark,
	// which stops its children in order; Pdeathsig reaps them should the
	// benchmark itself be killed.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("procs: start %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		log.Close()
		close(p.exited)
	}()
	return p, nil
}

// PID is the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Started is when the process was started.
func (p *Process) Started() time.Time { return p.started }

// Running reports whether the process has not exited yet.
func (p *Process) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop sends SIGTERM, waits up to grace for the exit, then sends SIGKILL
// and waits for that.
func (p *Process) Stop(grace time.Duration) {
	if !p.Running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
	}
}

// ExitErr is the process's exit status once it has exited.
func (p *Process) ExitErr() error {
	if p.Running() {
		return nil
	}
	return p.err
}
