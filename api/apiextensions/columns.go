package apiextensions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metatable "k8s.io/apimachinery/pkg/api/meta/table"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/jsonpath"

	"github.com/raftapi/raftapi/api/resource"
)

var objectMetaDocs = metav1.ObjectMeta{}.SwaggerDoc()

// ageColumn is the column a version without additionalPrinterColumns
// shows, as kube-apiserver serves it.
var ageColumn = apiextensionsv1.CustomResourceColumnDefinition{
	Name: "Age", Type: "date", Description: objectMetaDocs["creationTimestamp"], JSONPath: ".metadata.creationTimestamp",
}

// printerColumns returns the Table columns of a version: its
// additionalPrinterColumns (or Age), each a JSONPath into the object with
// cells typed as kube-apiserver's custom resource table convertor types
// them. The NAME column comes first, added by resource.Resource.
func printerColumns(defs []apiextensionsv1.CustomResourceColumnDefinition) ([]resource.Column, error) {
	if len(defs) == 0 {
		defs = []apiextensionsv1.CustomResourceColumnDefinition{ageColumn}
	}
	cols := make([]resource.Column, 0, len(defs))
	for _, d := range defs {
		path := jsonpath.New(d.Name)
		if err := path.Parse(fmt.Sprintf("{%s}", d.JSONPath)); err != nil {
			return nil, fmt.Errorf("unrecognized column definition %q", d.JSONPath)
		}
		path.AllowMissingKeys(true)
		desc := d.Description
		if desc == "" {
			desc = fmt.Sprintf("Custom resource definition column (in JSONPath format): %s", d.JSONPath)
		}
		cols = append(cols, resource.Column{
			TableColumnDefinition: metav1.TableColumnDefinition{
				Name: d.Name, Type: d.Type, Format: d.Format, Description: desc, Priority: d.Priority,
			},
			Value: cellFunc(path, d.Type),
		})
	}
	return cols, nil
}

// cellFunc returns the cell of a column: the first JSONPath result,
// printed for strings, converted to the column's type otherwise. A
// JSONPath keeps state while it evaluates, hence the lock.
func cellFunc(path *jsonpath.JSONPath, typ string) func(map[string]any) any {
	var mu sync.Mutex
	return func(obj map[string]any) any {
		mu.Lock()
		defer mu.Unlock()
		results, err := path.FindResults(obj)
		if err != nil || len(results) == 0 || len(results[0]) == 0 {
			return nil
		}
		value := results[0][0].Interface()
		if typ != "string" {
			return cellForJSONValue(typ, value)
		}
		var buf bytes.Buffer
		if err := path.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
			return nil
		}
		return buf.String()
	}
}

// cellForJSONValue converts a JSON value to the cell of a column of type
// typ; nil when it is not of that type.
func cellForJSONValue(typ string, value any) any {
	switch typ {
	case "integer":
		switch v := value.(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		case json.Number:
			if i, err := v.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch v := value.(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		case json.Number:
			if f, err := v.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := value.(bool); ok {
			return b
		}
	case "date":
		if s, ok := value.(string); ok {
			var t metav1.Time
			if err := t.UnmarshalQueryParameter(s); err != nil {
				return "<invalid>"
			}
			return metatable.ConvertToHumanReadableDateType(t)
		}
	}
	return nil
}
