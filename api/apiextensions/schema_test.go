package apiextensions

import (
	"fmt"
	"testing"
)

// TestServedCache remembers served forms by the stored bytes: a hit only
// for the same bytes, a miss for any other, and a bounded size.
func TestServedCache(t *testing.T) {
	c := newServedCache()
	c.put([]byte(`{"a":1}`), []byte(`{"a":1,"b":2}`))
	if got, ok := c.get([]byte(`{"a":1}`)); !ok || string(got) != `{"a":1,"b":2}` {
		t.Errorf("get of the stored bytes = %s, %v", got, ok)
	}
	if _, ok := c.get([]byte(`{"a":2}`)); ok {
		t.Error("a hit for other stored bytes")
	}
	for i := range servedCacheSize + 10 {
		c.put(fmt.Appendf(nil, `{"i":%d}`, i), []byte(`{}`))
	}
	if n := len(c.entries); n > servedCacheSize {
		t.Errorf("%d entries, want at most %d", n, servedCacheSize)
	}
}
