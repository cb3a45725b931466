package encryption

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Keys of the tests, base64 as a configuration holds them.
var (
	key16 = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))
	key24 = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef01234567"))
	key32 = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	other = base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
)

var secrets = schema.GroupResource{Resource: "secrets"}

// provider returns the YAML of one provider entry: kind (aesgcm, aescbc,
// secretbox) with keys name, secret, name, secret...; identity when kind
// is "identity".
func provider(kind string, keys ...string) string {
	if kind == "identity" {
		return "  - identity: {}\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  - %s:\n      keys:\n", kind)
	for i := 0; i+1 < len(keys); i += 2 {
		fmt.Fprintf(&b, "      - name: %s\n        secret: %q\n", keys[i], keys[i+1])
	}
	return b.String()
}

// entry returns the YAML of one resources entry.
func entry(resources []string, providers ...string) string {
	quoted := make([]string, len(resources))
	for i, r := range resources {
		quoted[i] = fmt.Sprintf("%q", r)
	}
	return "- resources: [" + strings.Join(quoted, ", ") + "]\n  providers:\n" + strings.Join(providers, "")
}

// configYAML returns an EncryptionConfiguration of entries.
func configYAML(entries ...string) string {
	return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" + strings.Join(entries, "")
}

// mustParse parses the configuration of entries.
func mustParse(t *testing.T, entries ...string) *Config {
	t.Helper()
	c, err := Parse([]byte(configYAML(entries...)))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, configYAML(entries...))
	}
	return c
}

// secretsWith parses a configuration of secrets with providers and
// returns their transformer.
func secretsWith(t *testing.T, providers ...string) transformer {
	t.Helper()
	r := mustParse(t, entry([]string{"secrets"}, providers...)).ruleFor(secrets)
	if r == nil {
		t.Fatal("no rule for secrets")
	}
	return r.providers
}
