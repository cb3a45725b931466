package cluster

import "testing"

// TestLiveByName: a --join address given as a host name counts as live
// when the name resolves to a live member's address with the same port,
// so a node does not join it again every second.
func TestLiveByName(t *testing.T) {
	live := map[string]bool{"127.0.0.1:7946": true}
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"localhost:7946", true},
		{"localhost:7947", false},
		{"127.0.0.1:7946", false}, // an IP is compared literally by absent
		{"no-such-host.invalid:7946", false},
		{"garbage", false},
	} {
		if got := liveByName(tc.addr, live); got != tc.want {
			t.Errorf("liveByName(%s) = %t, want %t", tc.addr, got, tc.want)
		}
	}
}
