package garbagecollector

import (
	"testing"

	"github.com/raftapi/raftapi/api/resource"
)

// A key belongs to the resource with the longest storage prefix that holds
// it, in whatever order the resources come; a key under none has none.
func TestResourceOfKey(t *testing.T) {
	outer, inner := &resource.Resource{}, &resource.Resource{}
	resources := []collectableResource{{prefix: "/registry/a/", res: outer}, {prefix: "/registry/a/b/", res: inner}}
	reversed := []collectableResource{resources[1], resources[0]}
	for _, tc := range []struct {
		key  string
		want *resource.Resource
	}{
		{"/registry/a/x", outer},
		{"/registry/a/b/x", inner},
		{"/registry/c/x", nil},
	} {
		for _, rs := range [][]collectableResource{resources, reversed} {
			if got := resourceOfKey(rs, tc.key); got != tc.want {
				t.Errorf("resourceOfKey(%q) = %p, want %p", tc.key, got, tc.want)
			}
		}
	}
}
