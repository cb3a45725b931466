package procs

import (
	"sync"
	"time"
)

// stopGrace is how long a process may take to exit after SIGTERM.
const stopGrace = 15 * time.Second

// Group is the set of processes one benchmark started. It is safe for
// concurrent use.
type Group struct {
	mu    sync.Mutex
	procs []*Process
}

// Start starts argv as a member of the group, its output appended to
// logPath.
func (g *Group) Start(name, logPath string, argv []string) (*Process, error) {
	p, err := start(name, logPath, argv)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.procs = append(g.procs, p)
	g.mu.Unlock()
	return p, nil
}

// StopAll stops every process of the group still running, all at once,
// and waits for them.
func (g *Group) StopAll() {
	g.mu.Lock()
	procs := append([]*Process(nil), g.procs...)
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.Stop(stopGrace) })
	}
	wg.Wait()
}
