package figures

import "sync"

// pool holds the names of keys the create figures wrote, for the update
// and delete figures to use. It is safe for concurrent use.
type pool struct {
	mu    sync.Mutex
	names []string
	next  int // names before next are taken
}

func (p *pool) add(name string) {
	p.mu.Lock()
	p.names = append(p.names, name)
	p.mu.Unlock()
}

// take removes and returns a name, or false when none is left.
func (p *pool) take() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == len(p.names) {
		return "", false
	}
	p.next++
	return p.names[p.next-1], true
}

// left is how many names are left.
func (p *pool) left() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.names) - p.next
}

// peek returns the i-th name not yet taken.
func (p *pool) peek(i int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.names[p.next+i]
}
