package builtin

import (
	"time"

	"github.com/raftapi/raftapi/api/resource"
)

// Resources returns fresh descriptions of the built-in resources. Callers
// may modify what they get; every call builds new values.
func Resources() []*resource.Resource {
	return []*resource.Resource{
		namespaces(),
		configMaps(),
		secrets(),
		serviceAccounts(),
		events(time.Now),
		eventsV1(time.Now),
		leases(),
		roles(), clusterRoles(), roleBindings(), clusterRoleBindings(),
	}
}
