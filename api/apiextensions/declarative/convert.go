package declarative

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/apiextensions/internal/jsonvalue"
)

// Converter converts the objects of one CRD as its policy says: from one
// version to another through the steps between them, one step at a time.
// It is built once per CRD and policy, never modified, and safe for
// concurrent use.
type Converter struct {
	group string
	// order is the CRD's versions as the steps chain them; at indexes it.
	order []string
	at    map[string]int
	// up[i] converts from order[i] to order[i+1], down[i] back.
	up, down []*direction
}

// New compiles p for crd: its CEL expressions are built once, as
// expressions already accepted (Validate checked them when p was
// written). It fails when p does not hold for crd, for instance when the
// CRD has changed since.
func New(crd *apiextensionsv1.CustomResourceDefinition, p *ConversionPolicy) (*Converter, error) {
	c, errs := compile(crd, p, true)
	if len(errs) > 0 {
		return nil, fmt.Errorf("declarative: the ConversionPolicy %s does not hold for the definition: %w", p.Name, errs.ToAggregate())
	}
	return c, nil
}

// Convert returns objs converted to version to, one object per object,
// in order; objs are not modified. An object converts through every step
// between its version and to; on the way, what a version cannot hold is
// kept in the reserved annotations (AnnotationPrefix), so that converting
// back gives the object as it was. An error is an *apierrors.StatusError,
// 500, naming the step and the rule that failed.
func (c *Converter) Convert(objs []map[string]any, to string) ([]map[string]any, error) {
	if _, ok := c.at[to]; !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("declarative conversion: %s is not a version of %s", to, c.group))
	}
	out := make([]map[string]any, len(objs))
	for i, obj := range objs {
		conv, err := c.convert(obj, to)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("declarative conversion of %s to %s: %w", describe(obj), to, err))
		}
		out[i] = conv
	}
	return out, nil
}

// Deterministic reports that equal objects always convert to equal
// objects: a converted object may be cached.
func (c *Converter) Deterministic() bool { return true }

// convert converts one object to version to.
func (c *Converter) convert(obj map[string]any, to string) (map[string]any, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Group != c.group {
		return nil, fmt.Errorf("apiVersion %q is not of group %s", apiVersion, c.group)
	}
	from, ok := c.at[gv.Version]
	if !ok {
		return nil, fmt.Errorf("%s is not a version of %s", gv.Version, c.group)
	}
	if gv.Version == to {
		return jsonvalue.DeepCopyObject(obj), nil
	}
	cur := obj
	for i := from; i != c.at[to]; {
		var d *direction
		if i < c.at[to] {
			d = c.up[i]
			i++
		} else {
			i--
			d = c.down[i]
		}
		if cur, err = d.convert(cur); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// describe names obj in messages.
func describe(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" {
		name = ns + "/" + name
	}
	apiVersion, _ := obj["apiVersion"].(string)
	return fmt.Sprintf("%q (%s)", name, apiVersion)
}
