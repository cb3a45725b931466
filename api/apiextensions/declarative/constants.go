package declarative

import (
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/apiextensions/internal/jsonvalue"
)

// constants compiles st's constants into the way into their version,
// each checked against its field's schema.
func (c *compiler) constants(st *ConversionStep, fld *field.Path, fwd, bwd *direction) {
	for i, k := range st.Constants {
		kf := fld.Child("constants").Index(i)
		p, s, ok := c.entry(st, k.Version, k.Path, kf)
		if !ok {
			continue
		}
		v, errs := constantValue(k.Value.Raw, s, kf.Child("value"))
		if len(errs) > 0 {
			c.errs = append(c.errs, errs...)
			continue
		}
		d := into(st, k.Version, fwd, bwd)
		d.constants = append(d.constants, constant{path: p, value: v})
	}
}

// constantValue decodes raw, which must be a value the field of schema s
// holds: of its type, valid for its validations, with no unknown field.
func constantValue(raw []byte, s *structuralschema.Structural, fld *field.Path) (any, field.ErrorList) {
	if len(raw) == 0 {
		return nil, field.ErrorList{field.Required(fld, "the value of the field when converting into its version")}
	}
	var v any
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, field.ErrorList{field.Invalid(fld, string(raw), fmt.Sprintf("must be JSON: %v", err))}
	}
	if v == nil {
		return nil, field.ErrorList{field.Invalid(fld, "null", "a null constant would leave the field unset: drop the field instead")}
	}
	if t := jsonType(v); !typeFits(t, s) {
		return nil, field.ErrorList{field.Invalid(fld, string(raw), fmt.Sprintf("must be of the field's type, %s, not %s", schemaType(s), t))}
	}
	validator := apiservervalidation.NewSchemaValidatorFromOpenAPI(s.ToKubeOpenAPI())
	errs := apiservervalidation.ValidateCustomResource(fld, v, validator)
	pruned := jsonvalue.DeepCopy(v)
	unknown := structuralpruning.PruneWithOptions(pruned, s, false, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	if len(unknown) > 0 {
		errs = append(errs, field.Invalid(fld, string(raw), "unknown fields: "+strings.Join(unknown, ", ")))
	}
	return v, errs
}

// jsonType names the JSON type of v as schemas do.
func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// typeFits reports whether a value of JSON type t may be a value of a
// field of schema s.
func typeFits(t string, s *structuralschema.Structural) bool {
	switch {
	case s.XIntOrString:
		return t == "integer" || t == "string"
	case s.Type == "":
		return true
	case s.Type == "number":
		return t == "number" || t == "integer"
	}
	return t == s.Type
}
