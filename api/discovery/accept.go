package discovery

import (
	"strings"

	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// format is one representation of a discovery document.
type format int

const (
	// formatLegacy is the metav1 document (APIVersions, APIGroupList, ...).
	formatLegacy format = iota + 1
	// formatV2 is aggregated discovery, apidiscovery.k8s.io/v2.
	formatV2
	// formatV2Beta1 is aggregated discovery, apidiscovery.k8s.io/v2beta1.
	formatV2Beta1
)

const discoveryGroup = "apidiscovery.k8s.io"

// contentType is the Content-Type a format is served with. client-go
// compares the g, v and as parameters of the aggregated types.
func (f format) contentType() string {
	switch f {
	case formatV2:
		return "application/json;g=" + discoveryGroup + ";v=v2;as=APIGroupDiscoveryList"
	case formatV2Beta1:
		return "application/json;g=" + discoveryGroup + ";v=v2beta1;as=APIGroupDiscoveryList"
	}
	return "application/json"
}

// apiVersion is the apiVersion of an aggregated format's documents.
func (f format) apiVersion() string {
	if f == formatV2Beta1 {
		return discoveryGroup + "/v2beta1"
	}
	return discoveryGroup + "/v2"
}

// negotiate returns the offered format the Accept header prefers: the
// acceptable entry with the highest q-value wins and the earlier entry wins
// a tie. An empty header accepts anything. ok is false when the header
// accepts none of offers.
func negotiate(header string, offers ...format) (f format, ok bool) {
	if strings.TrimSpace(header) == "" {
		return offers[0], true
	}
	bestQ := 0.0
	for _, a := range negotiation.ParseAcceptInOrder(header) {
		q := quality(a)
		af, known := formatOf(a)
		if !known || q <= bestQ || !offered(af, offers) {
			continue
		}
		f, bestQ, ok = af, q, true
	}
	return f, ok
}

// quality is an entry's q-value with anything above 1 counted as 1, so
// that an out-of-range q-value ties with the default instead of beating
// it.
func quality(a negotiation.Accept) float64 {
	return min(a.Q, 1)
}

// formatOf maps one Accept entry to the format it asks for. Wildcards and
// plain JSON ask for the legacy documents.
func formatOf(a negotiation.Accept) (format, bool) {
	switch a.Type {
	case "*/*", "application/*":
		return formatLegacy, true
	case "application/json":
	default:
		return 0, false
	}
	g, hasG := a.Params["g"]
	if !hasG {
		return formatLegacy, true
	}
	if g != discoveryGroup || a.Params["as"] != "APIGroupDiscoveryList" {
		return 0, false
	}
	switch a.Params["v"] {
	case "v2":
		return formatV2, true
	case "v2beta1":
		return formatV2Beta1, true
	}
	return 0, false
}

// offered reports whether f is one of offers.
func offered(f format, offers []format) bool {
	for _, o := range offers {
		if o == f {
			return true
		}
	}
	return false
}
