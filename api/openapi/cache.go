package openapi

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/resource"
)

// cache keeps the rendered documents of the latest registry content. A
// change to the registry gives a new generation; documents are rendered
// on first request.
type cache struct {
	mu  sync.Mutex
	gen *generation
}

// current returns the generation of rs, the registry's resources now.
func (c *cache) current(rs []*resource.Resource) *generation {
	key := fingerprint(rs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == nil || c.gen.key != key {
		c.gen = &generation{key: key, resources: rs, v3: map[schema.GroupVersion]*rendered{}}
	}
	return c.gen
}

// generation holds the documents of one registry content.
type generation struct {
	key       string
	resources []*resource.Resource

	mu    sync.Mutex
	v2    *rendered
	v3    map[schema.GroupVersion]*rendered
	index *rendered
}

// swagger returns the Swagger 2.0 document.
func (g *generation) swagger() (*rendered, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.v2 == nil {
		r, err := render(buildV2(g.resources), v2Proto)
		if err != nil {
			return nil, err
		}
		g.v2 = r
	}
	return g.v2, nil
}

// groupVersion returns the OpenAPI 3.0 document of gv, or nil when no
// resource is served in gv.
func (g *generation) groupVersion(gv schema.GroupVersion) (*rendered, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.groupVersionLocked(gv)
}

func (g *generation) groupVersionLocked(gv schema.GroupVersion) (*rendered, error) {
	if r, ok := g.v3[gv]; ok {
		return r, nil
	}
	if len(inGroupVersion(g.resources, gv)) == 0 {
		return nil, nil
	}
	r, err := render(buildV3(g.resources, gv), v3Proto)
	if err != nil {
		return nil, err
	}
	g.v3[gv] = r
	return r, nil
}

// discovery returns the /openapi/v3 index: every served group/version and
// the URL of its document, which carries the document's hash.
func (g *generation) discovery() (*rendered, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.index != nil {
		return g.index, nil
	}
	index := v3Index{Paths: map[string]v3IndexEntry{}}
	for _, gv := range groupVersions(g.resources) {
		doc, err := g.groupVersionLocked(gv)
		if err != nil {
			return nil, err
		}
		index.Paths[gvPath(gv)] = v3IndexEntry{ServerRelativeURL: gvURL(gv, doc.hash)}
	}
	r, err := render(&index, nil)
	if err != nil {
		return nil, err
	}
	g.index = r
	return r, nil
}

// v3Index is the /openapi/v3 document, in the shape of kube-openapi's
// handler3.OpenAPIV3Discovery, which client-go decodes it into.
type v3Index struct {
	Paths map[string]v3IndexEntry `json:"paths"`
}

// v3IndexEntry locates the document of one group/version.
type v3IndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// groupVersions returns the group/versions of rs, in order.
func groupVersions(rs []*resource.Resource) []schema.GroupVersion {
	var out []schema.GroupVersion
	for _, r := range rs {
		if gv := r.GroupVersion(); len(out) == 0 || out[len(out)-1] != gv {
			out = append(out, gv)
		}
	}
	return out
}

// gvPath names gv in the /openapi/v3 index: "api/v1",
// "apis/coordination.k8s.io/v1".
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// gvURL is the server-relative URL of the document of gv with the given
// hash.
func gvURL(gv schema.GroupVersion, hash string) string {
	return "/openapi/v3/" + gvPath(gv) + "?hash=" + hash
}

// fingerprint identifies the content of rs as far as the documents are
// concerned.
func fingerprint(rs []*resource.Resource) string {
	h := sha256.New()
	for _, r := range rs {
		fmt.Fprintf(h, "%q %q %q %q %q %q %t %q %q %q %s %s %s %q\n",
			r.Group, r.Version, r.Kind, r.ListKind, r.Plural, r.Singular, r.Namespaced,
			r.ShortNames, r.Categories, r.ServedVerbs(), typeName(r.GoType()), typeName(r.GoListType()),
			schemaFingerprint(r), subresourceNames(r))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// typeName identifies Go type t, "-" for none.
func typeName(t reflect.Type) string {
	if t == nil {
		return "-"
	}
	return t.PkgPath() + "." + t.Name()
}

// schemaFingerprint identifies r's Schema, "-" for none.
func schemaFingerprint(r *resource.Resource) string {
	if r.Schema == nil {
		return "-"
	}
	return r.Schema.Fingerprint()
}

// subresourceNames lists r's subresources, whose paths the documents have.
func subresourceNames(r *resource.Resource) []string {
	out := make([]string, len(r.Subresources))
	for i, sub := range r.Subresources {
		out[i] = sub.Name
	}
	return out
}
