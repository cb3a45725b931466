package cluster

import (
	"crypto/sha256"
	"crypto/x509"
	"sync"
	"time"
)

// verifyCache remembers the verification of client certificate chains: a
// client sends the same chain on every request of a connection and every
// connection, and verifying it (an Ed25519 signature check) is most of the
// cost of a small authenticated request. The client CAs do not change
// while a node runs, so a result holds until the leaf expires.
type verifyCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]verifyResult
}

type verifyResult struct {
	err     error
	expires time.Time
}

// maxVerifyCache bounds the cache; when full it starts again empty.
const maxVerifyCache = 4096

// verify returns the cached result for chain, or computes it with fn.
func (c *verifyCache) verify(chain []*x509.Certificate, fn func() error) error {
	h := sha256.New()
	for _, cert := range chain {
		h.Write(cert.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	now := time.Now()
	c.mu.Lock()
	r, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(r.expires) {
		return r.err
	}
	err := fn()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxVerifyCache {
		c.entries = map[[sha256.Size]byte]verifyResult{}
	}
	c.entries[key] = verifyResult{err: err, expires: chain[0].NotAfter}
	return err
}
