package e2e

import "testing"

// TestCRDVersions shows custom resource versions and conversion from
// outside, on one 1-node and one 3-node cluster that all its scenarios
// share, each in a group and namespace of its own:
//
//   - declarative: a CRD of three versions (a rename, a moved field, a
//     computed field and a dropped field) and its ConversionPolicy,
//     applied with kubectl; kubectl and client-go write and read every
//     object in every version, list, select by each version's fields,
//     see each version's printer columns and the deprecated version's
//     warning; watches in two versions see the same events. On 3 nodes
//     kubectl talks to a follower and client-go to the leader.
//   - webhook (1 node, and a 3-node follower): a conversion webhook over
//     TLS served by the test, one ConversionReview per list, a refused
//     conversion, and a webhook service refused at validation.
//   - migration (3 nodes, last: it kills the leader): storage moves from
//     v1 to v2 under concurrent writes through every node.
func TestCRDVersions(t *testing.T) {
	bin := crdVersionsKubectl(t)
	one := startCluster(t, 1)
	three := startCluster(t, 3)
	t.Run("1node", func(t *testing.T) {
		a := one.nodes[0].api
		t.Run("declarative", func(t *testing.T) { runGadgets(t, bin, a, a, []string{a}, "cv-1node") })
		t.Run("webhook", func(t *testing.T) { runThingsWebhook(t, a, "cv-webhook") })
	})
	t.Run("3node", func(t *testing.T) {
		l := three.waitLeader(-1)
		f := (l + 1) % 3
		var nodes []string
		for _, nd := range three.nodes {
			nodes = append(nodes, nd.api)
		}
		leader, follower := three.nodes[l].api, three.nodes[f].api
		t.Run("declarative", func(t *testing.T) { runGadgets(t, bin, follower, leader, nodes, "cv-3node") })
		t.Run("webhook-follower", func(t *testing.T) { runThingsWebhook(t, follower, "cv-webhook-3node") })
		t.Run("migration", func(t *testing.T) { runMeterMigration(t, bin, three, "cv-migration") })
	})
}
