package target

import (
	"net/http"
	"sync"

	"github.com/raftapi/raftapi/bench/internal/kubeapi"
)

// watchersPerTransport is how many watches share a transport's
// connections: HTTP/2 servers allow some hundred streams on one.
const watchersPerTransport = 100

// watchPool hands out the clients of watches: watch w goes to node
// w mod len(nodes), over the transport of its group of
// watchersPerTransport watches, so that many watches do not queue on one
// connection's stream limit.
type watchPool struct {
	nodes []*kubeapi.Client // one per node
	// newTransport returns a transport with connections of its own.
	newTransport func() *http.Transport

	mu     sync.Mutex
	groups [][]*kubeapi.Client // per group of watchersPerTransport, one per node
}

// client returns the client of watch w.
func (p *watchPool) client(w int) *kubeapi.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := w / watchersPerTransport
	for len(p.groups) <= g {
		rt := p.newTransport()
		cs := make([]*kubeapi.Client, len(p.nodes))
		for i, c := range p.nodes {
			cs[i] = kubeapi.New(c.Base(), rt)
		}
		p.groups = append(p.groups, cs)
	}
	cs := p.groups[g]
	return cs[w%len(cs)]
}
