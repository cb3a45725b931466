package encryption

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// registryRoot starts every storage key: "/registry/<group, or core>/
// <resource>/[<namespace>/]<name>" (api/resource.Resource.Key).
const registryRoot = "/registry/"

// resourceOf returns the storage group and resource of a storage key or
// of a prefix at or below a resource's, and whether key has that form.
func resourceOf(key string) (schema.GroupResource, bool) {
	rest, ok := strings.CutPrefix(key, registryRoot)
	if !ok {
		return schema.GroupResource{}, false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" {
		return schema.GroupResource{}, false
	}
	gr := schema.GroupResource{Group: parts[0], Resource: parts[1]}
	if gr.Group == "core" {
		gr.Group = ""
	}
	return gr, true
}

// resourcePrefix returns the storage prefix of the resource of key
// ("/registry/core/secrets/"), "" when key has no resource.
func resourcePrefix(key string) string {
	rest, ok := strings.CutPrefix(key, registryRoot)
	if !ok {
		return ""
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return registryRoot + parts[0] + "/" + parts[1] + "/"
}

// objectKey is the storage key of the object namespace/name of the
// resource whose prefix is prefix.
func objectKey(prefix, namespace, name string) string {
	if namespace != "" {
		return prefix + namespace + "/" + name
	}
	return prefix + name
}

// ruleForKey returns the rule of the resource of key (nil for none, or
// for a key outside the registry).
func (c *Config) ruleForKey(key string) *rule {
	if c == nil {
		return nil
	}
	gr, ok := resourceOf(key)
	if !ok {
		return nil
	}
	return c.ruleFor(gr)
}
