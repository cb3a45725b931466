package encryption

import (
	"errors"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/apis/apiserver"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"sigs.k8s.io/yaml"
)

// Config is a loaded and validated EncryptionConfiguration: for each
// resource it names, the providers its stored objects go through. A nil
// *Config encrypts nothing. It is immutable and safe for concurrent use.
type Config struct {
	rules map[schema.GroupResource]*rule
}

// rule is what a Config does with the objects of one resource entry.
type rule struct {
	// providers are the resource's providers in order: the first
	// writes, every one reads.
	providers *prefixList
	// encrypts is false when the first provider is identity: objects are
	// then written as they are.
	encrypts bool
}

// LoadFile reads, decodes and validates the EncryptionConfiguration at
// path, as kube-apiserver's --encryption-provider-config does.
func LoadFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("error reading encryption provider configuration file %q: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("encryption provider configuration file %q is empty", path)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("encryption provider configuration file %q: %w", path, err)
	}
	return c, nil
}

// Parse decodes and validates an EncryptionConfiguration in YAML or JSON:
// apiVersion apiserver.config.k8s.io/v1 and kind EncryptionConfiguration,
// or the legacy apiVersion v1 and kind EncryptionConfig kube-apiserver
// also accepts. Unknown fields are errors. Validation is kube-apiserver's,
// with its messages; the kms provider is refused, since raftapi has no
// KMS plugin client.
func Parse(data []byte) (*Config, error) {
	ec, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("error decoding encryption provider configuration: %w", err)
	}
	if err := rejectKMS(ec); err != nil {
		return nil, err
	}
	var internal apiserver.EncryptionConfiguration
	if err := apiserverv1.Convert_v1_EncryptionConfiguration_To_apiserver_EncryptionConfiguration(ec, &internal, nil); err != nil {
		return nil, fmt.Errorf("error converting encryption provider configuration: %w", err)
	}
	if err := validation.ValidateEncryptionConfiguration(&internal, false).ToAggregate(); err != nil {
		return nil, redact(err, ec)
	}
	return newConfig(ec)
}

// redact returns err without the keys of ec: kube's validation prints a
// provider with two kinds whole, secrets included.
func redact(err error, ec *apiserverv1.EncryptionConfiguration) error {
	msg := err.Error()
	for _, rc := range ec.Resources {
		for _, p := range rc.Providers {
			for _, k := range keysOf(p) {
				if k.Secret != "" {
					msg = strings.ReplaceAll(msg, k.Secret, "REDACTED")
				}
			}
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// keysOf returns the keys of a provider.
func keysOf(p apiserverv1.ProviderConfiguration) []apiserverv1.Key {
	var keys []apiserverv1.Key
	if p.AESGCM != nil {
		keys = append(keys, p.AESGCM.Keys...)
	}
	if p.AESCBC != nil {
		keys = append(keys, p.AESCBC.Keys...)
	}
	if p.Secretbox != nil {
		keys = append(keys, p.Secretbox.Keys...)
	}
	return keys
}

// decode strictly decodes data as a v1 EncryptionConfiguration.
func decode(data []byte) (*apiserverv1.EncryptionConfiguration, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return nil, err
	}
	switch {
	case tm.Kind == "":
		return nil, errors.New("object 'Kind' is missing")
	case tm.APIVersion == apiserverv1.SchemeGroupVersion.String() && tm.Kind == "EncryptionConfiguration":
	case tm.APIVersion == "v1" && tm.Kind == "EncryptionConfig":
		// kube-apiserver registers this name too, after a docs bug.
	default:
		return nil, fmt.Errorf("no kind %q is registered for version %q", tm.Kind, tm.APIVersion)
	}
	var ec apiserverv1.EncryptionConfiguration
	if err := yaml.UnmarshalStrict(data, &ec); err != nil {
		return nil, err
	}
	return &ec, nil
}

// rejectKMS refuses a kms provider with a clear message, before
// validation would complain about its settings.
func rejectKMS(ec *apiserverv1.EncryptionConfiguration) error {
	for i, rc := range ec.Resources {
		for j, p := range rc.Providers {
			if p.KMS != nil {
				return fmt.Errorf("resources[%d].providers[%d].kms: Unsupported value: the kms provider is not supported by raftapi; use aesgcm, aescbc or secretbox", i, j)
			}
		}
	}
	return nil
}

// newConfig builds the rules of a validated configuration. A resource
// named by several entries gets the providers of each, in order; one
// masked by an earlier "*.group" or "*.*" is an error, as in kube.
func newConfig(ec *apiserverv1.EncryptionConfiguration) (*Config, error) {
	providers := map[schema.GroupResource][]prefixed{}
	for i, rc := range ec.Resources {
		ps, err := newProviders(rc.Providers)
		if err != nil {
			return nil, fmt.Errorf("resources[%d]: %w", i, err)
		}
		for _, r := range rc.Resources {
			gr := schema.ParseGroupResource(r)
			for _, wide := range []schema.GroupResource{{Group: gr.Group, Resource: "*"}, anyResource} {
				if _, masked := providers[wide]; masked {
					return nil, fmt.Errorf("resource %q is masked by earlier rule %q", yamlString(gr), yamlString(wide))
				}
			}
			providers[gr] = append(providers[gr], ps...)
		}
	}
	c := &Config{rules: map[schema.GroupResource]*rule{}}
	for gr, ps := range providers {
		c.rules[gr] = &rule{
			providers: &prefixList{items: ps, noMatch: errNoMatchingPrefix},
			encrypts:  len(ps[0].prefix) > 0,
		}
	}
	return c, nil
}

// anyResource is "*.*", every resource of every group.
var anyResource = schema.GroupResource{Group: "*", Resource: "*"}

// yamlString writes gr as the configuration does ("*." for every core
// resource).
func yamlString(gr schema.GroupResource) string {
	if gr.Group == "" && gr.Resource == "*" {
		return "*."
	}
	return gr.String()
}

// ruleFor returns the rule of gr: its own, else its group's "*.group",
// else "*.*"; nil when none applies (its objects are stored as they are).
func (c *Config) ruleFor(gr schema.GroupResource) *rule {
	if c == nil {
		return nil
	}
	for _, k := range []schema.GroupResource{gr, {Group: gr.Group, Resource: "*"}, anyResource} {
		if r, ok := c.rules[k]; ok {
			return r
		}
	}
	return nil
}

// Encrypts reports whether objects of gr (its storage group and
// resource, "" for the core group) are written encrypted: a rule applies
// to it and its first provider is not identity.
func (c *Config) Encrypts(gr schema.GroupResource) bool {
	r := c.ruleFor(gr)
	return r != nil && r.encrypts
}
