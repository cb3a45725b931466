package nodes

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is one running raftapi process.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once it has exited
}

// spawn starts argv, appending its output to logPath.
func spawn(logPath string, argv []string) (*process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("nodes: log: %w", err)
	}
	fmt.Fprintf(log, "==== %s start: %v\n", time.Now().Format(time.RFC3339Nano), argv)
	p := &process{cmd: exec.Command(argv[0], argv[1:]...), exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("nodes: start %v: %w", argv, err)
	}
	go func() {
		err := p.cmd.Wait()
		fmt.Fprintf(log, "==== %s exit: %v\n", time.Now().Format(time.RFC3339Nano), err)
		log.Close()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) signal(sig syscall.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("nodes: signal %v: %w", sig, err)
	}
	return nil
}

// kill sends SIGKILL and waits for the exit.
func (p *process) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// wait waits for the process to exit by itself within d.
func (p *process) wait(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}
