package encryption

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestParseValid parses valid configurations and checks which resources
// each encrypts.
func TestParseValid(t *testing.T) {
	gcm := provider("aesgcm", "k1", key32)
	tests := []struct {
		name     string
		config   string
		encrypts []schema.GroupResource
		plain    []schema.GroupResource
	}{{
		name:     "secrets",
		config:   configYAML(entry([]string{"secrets"}, gcm, provider("identity"))),
		encrypts: []schema.GroupResource{secrets},
		plain:    []schema.GroupResource{{Resource: "configmaps"}, {Group: "example.com", Resource: "secrets"}},
	}, {
		name:     "custom resource and group wildcard",
		config:   configYAML(entry([]string{"widgets.example.com", "*.other.io"}, gcm)),
		encrypts: []schema.GroupResource{{Group: "example.com", Resource: "widgets"}, {Group: "other.io", Resource: "gadgets"}},
		plain:    []schema.GroupResource{secrets, {Group: "example.com", Resource: "gizmos"}},
	}, {
		name:     "core wildcard",
		config:   configYAML(entry([]string{"*."}, gcm)),
		encrypts: []schema.GroupResource{secrets, {Resource: "configmaps"}},
		plain:    []schema.GroupResource{{Group: "apps", Resource: "deployments"}},
	}, {
		name:     "everything, secrets first",
		config:   configYAML(entry([]string{"secrets"}, provider("secretbox", "k1", key32)), entry([]string{"*.*"}, gcm)),
		encrypts: []schema.GroupResource{secrets, {Group: "apps", Resource: "deployments"}, {Resource: "configmaps"}},
	}, {
		name:   "identity first",
		config: configYAML(entry([]string{"secrets"}, provider("identity"), gcm)),
		plain:  []schema.GroupResource{secrets},
	}, {
		name:     "legacy kind",
		config:   "apiVersion: v1\nkind: EncryptionConfig\nresources:\n" + entry([]string{"secrets"}, gcm),
		encrypts: []schema.GroupResource{secrets},
	}, {
		name:     "JSON",
		config:   `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[{"resources":["secrets"],"providers":[{"aescbc":{"keys":[{"name":"k","secret":"` + key16 + `"}]}}]}]}`,
		encrypts: []schema.GroupResource{secrets},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.config))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			for _, gr := range tt.encrypts {
				if !c.Encrypts(gr) {
					t.Errorf("%v not encrypted", gr)
				}
			}
			for _, gr := range tt.plain {
				if c.Encrypts(gr) {
					t.Errorf("%v encrypted", gr)
				}
			}
		})
	}
}

// TestParseInvalid checks each invalid configuration's message.
func TestParseInvalid(t *testing.T) {
	gcm := provider("aesgcm", "k1", key32)
	tests := []struct {
		name, config, want string
	}{
		{"not YAML", "resources: [", "error decoding encryption provider configuration"},
		{"no kind", "apiVersion: apiserver.config.k8s.io/v1\nresources: []\n", "object 'Kind' is missing"},
		{"wrong kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n", `no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io/v1"`},
		{"wrong version", "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: EncryptionConfiguration\n", `no kind "EncryptionConfiguration" is registered for version "apiserver.config.k8s.io/v1beta1"`},
		{"unknown field", configYAML(entry([]string{"secrets"}, gcm)) + "extra: 1\n", `unknown field "extra"`},
		{"unknown provider", configYAML(entry([]string{"secrets"}, "  - rot13: {}\n")), `unknown field "rot13"`},
		{"no resources", configYAML(), "resources: Required value: at least one resources is required"},
		{"no providers", configYAML("- resources: [secrets]\n  providers: []\n"), "resources[0].providers: Required value: at least one resources[0].providers is required"},
		{"empty provider", configYAML(entry([]string{"secrets"}, "  - {}\n")), "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity"},
		{"two providers in one", configYAML(entry([]string{"secrets"}, "  - identity: {}\n    aesgcm:\n      keys:\n      - name: k\n        secret: "+key32+"\n")), "more than one provider specified in a single element, should split into different list elements"},
		{"kms", configYAML(entry([]string{"secrets"}, "  - kms:\n      name: plugin\n      endpoint: unix:///kms.sock\n")), "resources[0].providers[0].kms: Unsupported value: the kms provider is not supported by raftapi"},
		{"short aes key", configYAML(entry([]string{"secrets"}, provider("aesgcm", "k1", "c2hvcnQ="))), `resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32]`},
		{"short secretbox key", configYAML(entry([]string{"secrets"}, provider("secretbox", "k1", key16))), `resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]`},
		{"key not base64", configYAML(entry([]string{"secrets"}, provider("aescbc", "k1", "%%%"))), `resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded`},
		{"key without name", configYAML(entry([]string{"secrets"}, "  - aesgcm:\n      keys:\n      - secret: "+key32+"\n")), "resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key"},
		{"no keys", configYAML(entry([]string{"secrets"}, "  - aesgcm:\n      keys: []\n")), "resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required"},
		{"duplicate resource", configYAML(entry([]string{"secrets", "secrets"}, gcm)), "the same resource cannot be specified multiple times"},
		{"overlap", configYAML(entry([]string{"secrets", "*."}, gcm)), "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"},
		{"bare star", configYAML(entry([]string{"*"}, gcm)), "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"},
		{"resource across groups", configYAML(entry([]string{"secrets.*"}, gcm)), "encrypting the same resource across groups is not supported"},
		{"capital letters", configYAML(entry([]string{"Secrets"}, gcm)), "resource name should not contain capital letters"},
		{"events group", configYAML(entry([]string{"events.events.k8s.io"}, gcm)), "'*.events.k8s.io' objects are stored using the 'events' API group in etcd"},
		{"masked by group", configYAML(entry([]string{"*.apps"}, gcm), entry([]string{"deployments.apps"}, gcm)), `resource "deployments.apps" is masked by earlier rule "*.apps"`},
		{"masked by everything", configYAML(entry([]string{"*.*"}, gcm), entry([]string{"secrets"}, gcm)), `resource "secrets" is masked by earlier rule "*.*"`},
		{"core masked", configYAML(entry([]string{"*."}, gcm), entry([]string{"secrets"}, gcm)), `resource "secrets" is masked by earlier rule "*."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.config))
			if err == nil {
				t.Fatalf("Parse succeeded (%+v), want an error with %q", c, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), key32) {
				t.Fatalf("error %q shows a key", err)
			}
		})
	}
}

// TestLoadFile reads a configuration from a file, and names the file in
// its errors.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(configYAML(entry([]string{"secrets"}, provider("aesgcm", "k1", key32)))), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile(good)
	if err != nil || !c.Encrypts(secrets) {
		t.Fatalf("LoadFile = %v, %v; want a config that encrypts secrets", c, err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		empty:                             `encryption provider configuration file "` + empty + `" is empty`,
		filepath.Join(dir, "absent.yaml"): "error reading encryption provider configuration file",
	} {
		if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadFile(%s) = %v, want an error with %q", path, err, want)
		}
	}
}

// TestRulesAcrossEntries checks that a resource named by two entries
// reads with the providers of both, and writes with the first entry's.
func TestRulesAcrossEntries(t *testing.T) {
	old := secretsWith(t, provider("aescbc", "old", key16))
	stored, _ := old.write([]byte(plain), []byte(keyPath))
	c := mustParse(t,
		entry([]string{"secrets"}, provider("aesgcm", "new", key32)),
		entry([]string{"secrets", "configmaps"}, provider("aescbc", "old", key16)))
	got, stale, err := c.ruleFor(secrets).providers.read(stored, []byte(keyPath))
	if err != nil || !stale || string(got) != plain {
		t.Fatalf("read = %q, stale %v, %v; want the plaintext, stale", got, stale, err)
	}
	written, _ := c.ruleFor(secrets).providers.write([]byte(plain), []byte(keyPath))
	if !strings.HasPrefix(string(written), "k8s:enc:aesgcm:v1:new:") {
		t.Fatalf("written %q, want the first entry's aesgcm", written[:30])
	}
}
