package declarative

import (
	"encoding/base64"
	"fmt"
	"math"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// jsonValue returns the JSON form of a CEL value, as the types of an
// object decoded from JSON: int64, float64, string, bool, nil, []any and
// map[string]any. Timestamps and durations become the strings the
// date-time and duration formats say, bytes base64.
func jsonValue(v ref.Val) (any, error) {
	switch v := v.(type) {
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(v), nil
	case types.Int:
		return int64(v), nil
	case types.Uint:
		if uint64(v) > math.MaxInt64 {
			return nil, fmt.Errorf("%d is too large for an integer field", uint64(v))
		}
		return int64(v), nil
	case types.Double:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%v is not a JSON number", float64(v))
		}
		return float64(v), nil
	case types.String:
		return string(v), nil
	case types.Bytes:
		return base64.StdEncoding.EncodeToString(v), nil
	case types.Timestamp:
		return v.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		return v.Duration.String(), nil
	case traits.Mapper:
		return jsonObject(v)
	case traits.Lister:
		return jsonArray(v)
	}
	return nil, fmt.Errorf("a value of type %s has no JSON form", v.Type().TypeName())
}

// jsonObject returns the JSON form of a CEL map with string keys.
func jsonObject(m traits.Mapper) (map[string]any, error) {
	out := map[string]any{}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		ks, ok := k.(types.String)
		if !ok {
			return nil, fmt.Errorf("a map key of type %s has no JSON form", k.Type().TypeName())
		}
		v, err := jsonValue(m.Get(k))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", string(ks), err)
		}
		out[string(ks)] = v
	}
	return out, nil
}

// jsonArray returns the JSON form of a CEL list.
func jsonArray(l traits.Lister) ([]any, error) {
	n, ok := l.Size().(types.Int)
	if !ok {
		return nil, fmt.Errorf("a list of unknown size")
	}
	out := make([]any, 0, int(n))
	for i := types.Int(0); i < n; i++ {
		v, err := jsonValue(l.Get(i))
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// resultFits reports whether an expression of type t may give the value
// of a field of schema s, as far as the checker knows t: dyn and null fit
// anything, and a number field takes an integer.
func resultFits(t *cel.Type, s *structuralschema.Structural) bool {
	k := t.Kind()
	if k == types.DynKind || k == types.AnyKind || k == types.NullTypeKind || k == types.ErrorKind {
		return true
	}
	if s.XIntOrString {
		return k == types.IntKind || k == types.UintKind || k == types.StringKind
	}
	switch s.Type {
	case "string":
		return k == types.StringKind || k == types.TimestampKind || k == types.DurationKind || k == types.BytesKind
	case "integer":
		return k == types.IntKind || k == types.UintKind
	case "number":
		return k == types.DoubleKind || k == types.IntKind || k == types.UintKind
	case "boolean":
		return k == types.BoolKind
	case "array":
		return k == types.ListKind
	case "object":
		return k == types.MapKind || k == types.StructKind
	}
	return true
}

// schemaType names the type of a field's schema in messages.
func schemaType(s *structuralschema.Structural) string {
	switch {
	case s.XIntOrString:
		return "int-or-string"
	case s.Type == "":
		return "any value"
	}
	return s.Type
}
