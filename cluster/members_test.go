package cluster

import (
	"context"
	"fmt"
	"testing"
)

// TestStaticMembersKnowEachOther starts a static three-node cluster, which
// has no gossip, and checks that every node reports every member healthy,
// caught up, and with its API address: members ask each other over the
// peer channel.
func TestStaticMembersKnowEachOther(t *testing.T) {
	names := []string{"a", "b", "c"}
	nodes := startStatic(t, names...)
	for _, asker := range names {
		pollUntil(t, asker+" sees every member", func() (bool, string) {
			members, err := nodes[asker].Members(context.Background())
			if err != nil {
				return false, err.Error()
			}
			if len(members) != len(names) {
				return false, fmt.Sprintf("%d members", len(members))
			}
			for _, m := range members {
				if !m.Healthy || m.AppliedIndex == 0 || m.APIAddress != nodes[m.Name].APIAddr() {
					return false, fmt.Sprintf("%+v", m)
				}
			}
			return true, ""
		})
	}
}
