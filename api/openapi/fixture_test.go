package openapi_test

import (
	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/api/resource/resourcetest"
)

// testRegistry serves configmaps, secrets and namespaces in the core group,
// leases in coordination.k8s.io and crontabs, which have no Go type, in
// stable.example.com.
func testRegistry() *resource.Registry {
	return resource.NewRegistry(append(resourcetest.Typed(), resourcetest.CronTab())...)
}
