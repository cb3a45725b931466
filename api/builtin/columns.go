package builtin

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/raftapi/raftapi/api/resource"
)

// column returns a Table column computed by value. kube-apiserver's
// printers declare every built-in column with type "string", whatever the
// cells hold.
func column(name, description string, priority int32, value func(map[string]any) any) resource.Column {
	return resource.Column{
		TableColumnDefinition: metav1.TableColumnDefinition{
			Name:        name,
			Type:        "string",
			Description: description,
			Priority:    priority,
		},
		Value: value,
	}
}

// stringCell is a cell holding the string at path, "" when absent, as the
// printers print an unset string field.
func stringCell(path string) func(map[string]any) any {
	return func(obj map[string]any) any { return stringAt(obj, path) }
}

// countCell is a cell holding the total number of entries of the maps or
// lists at paths, as an int64.
func countCell(paths ...string) func(map[string]any) any {
	return func(obj map[string]any) any {
		var n int64
		for _, p := range paths {
			switch v, _ := resource.Lookup(obj, p); t := v.(type) {
			case map[string]any:
				n += int64(len(t))
			case []any:
				n += int64(len(t))
			}
		}
		return n
	}
}

// stringAt returns the string at path, "" when absent or not a string.
func stringAt(obj map[string]any, path string) string {
	v, _ := resource.Lookup(obj, path)
	s, _ := v.(string)
	return s
}

// int64At returns the integer at path and whether there was one. JSON
// decoders give float64, int64 or json.Number depending on their options.
func int64At(obj map[string]any, path string) (int64, bool) {
	v, _ := resource.Lookup(obj, path)
	switch t := v.(type) {
	case int64:
		return t, true
	case int:
		return int64(t), true
	case int32:
		return int64(t), true
	case float64:
		return int64(t), true
	case json.Number:
		n, err := t.Int64()
		return n, err == nil
	}
	return 0, false
}

// timeAt returns the timestamp at path, the zero time when absent or
// malformed. It reads both metav1.Time and metav1.MicroTime encodings.
func timeAt(obj map[string]any, path string) time.Time {
	t, err := time.Parse(time.RFC3339, stringAt(obj, path))
	if err != nil {
		return time.Time{}
	}
	return t
}

// since renders the time elapsed since t as the printers do: a short
// human duration, or "<unknown>" for an unset time.
func since(now func() time.Time, t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now().Sub(t))
}
