package cluster

import (
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

// TestVerifyCache checks that a chain is verified once while its leaf is
// valid, that each chain has its own result, and that an expired leaf is
// verified again.
func TestVerifyCache(t *testing.T) {
	var c verifyCache
	calls := 0
	fail := errors.New("bad chain")
	verify := func(err error) func() error { return func() error { calls++; return err } }
	good := []*x509.Certificate{{Raw: []byte("good"), NotAfter: time.Now().Add(time.Hour)}}
	bad := []*x509.Certificate{{Raw: []byte("bad"), NotAfter: time.Now().Add(time.Hour)}}
	for range 3 {
		if err := c.verify(good, verify(nil)); err != nil {
			t.Fatal(err)
		}
		if err := c.verify(bad, verify(fail)); !errors.Is(err, fail) {
			t.Fatalf("bad chain: %v", err)
		}
	}
	if calls != 2 {
		t.Fatalf("%d verifications for two chains, want 2", calls)
	}
	expired := []*x509.Certificate{{Raw: []byte("expired"), NotAfter: time.Now().Add(-time.Minute)}}
	c.verify(expired, verify(fail))
	c.verify(expired, verify(fail))
	if calls != 4 {
		t.Fatalf("an expired chain's result was reused (%d verifications)", calls)
	}
}
