package audit

import (
	"testing"
)

// BenchmarkHandler measures what auditing adds to a request: the ID
// alone (no policy), and a GET recorded at Metadata in blocking mode
// (two events encoded and written), from parallel clients.
func BenchmarkHandler(b *testing.B) {
	for _, tc := range []struct {
		name   string
		policy string
	}{{"off", ""}, {"Metadata", policyAt("Metadata")}, {"RequestResponse", policyAt("RequestResponse")}} {
		b.Run(tc.name, func(b *testing.B) {
			var a *Auditor
			if tc.policy != "" {
				a, _ = newTestAuditor(b, tc.policy)
			}
			h := a.Handler(withTestAuth(testAPI))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					serve(h, request{method: "GET", target: "/api/v1/namespaces/ns/configmaps/c"})
				}
			})
		})
	}
}
