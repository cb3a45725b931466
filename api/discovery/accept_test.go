package discovery

import "testing"

func TestNegotiate(t *testing.T) {
	all := []format{formatLegacy, formatV2, formatV2Beta1}
	tests := []struct {
		name   string
		accept string
		offers []format
		want   format
		ok     bool
	}{
		{"empty", "", all, formatLegacy, true},
		{"client-go order", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", all, formatV2, true},
		{"v2beta1 first", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", all, formatV2Beta1, true},
		{"parameter order and spaces", "application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io", all, formatV2, true},
		{"q wins over order", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.8, application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", all, formatV2Beta1, true},
		{"q zero refuses", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0, */*;q=0.1", all, formatLegacy, true},
		{"aggregated not offered", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;q=0.5", []format{formatLegacy}, formatLegacy, true},
		{"nothing acceptable", "application/yaml, application/vnd.kubernetes.protobuf", all, 0, false},
		{"other group", "application/json;g=example.com;v=v2;as=APIGroupDiscoveryList", all, 0, false},
		{"malformed clause skipped", "a/b/c;;, application/*", all, formatLegacy, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := negotiate(tt.accept, tt.offers...)
			if got != tt.want || ok != tt.ok {
				t.Errorf("negotiate(%q) = %v, %v; want %v, %v", tt.accept, got, ok, tt.want, tt.ok)
			}
		})
	}
}
