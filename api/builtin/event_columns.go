package builtin

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// eventColumns are kube-apiserver's event Table columns, the wide ones
// (priority 1) included, with Name last and no Age.
func eventColumns(now func() time.Time) []resource.Column {
	ev, ref := corev1.Event{}.SwaggerDoc(), corev1.ObjectReference{}.SwaggerDoc()
	return []resource.Column{
		column("Last Seen", ev["lastTimestamp"], 0, func(obj map[string]any) any {
			return eventLastSeen(now, obj)
		}),
		column("Type", ev["type"], 0, stringCell("type")),
		column("Reason", ev["reason"], 0, stringCell("reason")),
		column("Object", ev["involvedObject"], 0, eventTarget),
		column("Subobject", ref["fieldPath"], 1, stringCell("involvedObject.fieldPath")),
		column("Source", ev["source"], 1, eventSource),
		column("Message", ev["message"], 0, func(obj map[string]any) any {
			return strings.TrimSpace(stringAt(obj, "message"))
		}),
		column("First Seen", ev["firstTimestamp"], 1, func(obj map[string]any) any {
			return eventFirstSeen(now, obj)
		}),
		column("Count", ev["count"], 1, eventCount),
		nameColumn(),
	}
}

// eventFirstSeen is firstTimestamp's age, or eventTime's for new-style
// events.
func eventFirstSeen(now func() time.Time, obj map[string]any) string {
	if t := timeAt(obj, "firstTimestamp"); !t.IsZero() {
		return since(now, t)
	}
	return since(now, timeAt(obj, "eventTime"))
}

// eventLastSeen is the series' last observation, else lastTimestamp,
// else the first-seen age.
func eventLastSeen(now func() time.Time, obj map[string]any) string {
	if _, ok := obj["series"].(map[string]any); ok {
		return since(now, timeAt(obj, "series.lastObservedTime"))
	}
	if t := timeAt(obj, "lastTimestamp"); !t.IsZero() {
		return since(now, t)
	}
	return eventFirstSeen(now, obj)
}

// eventCount is the series' count, else count, where an unset count means
// a single occurrence.
func eventCount(obj map[string]any) any {
	if _, ok := obj["series"].(map[string]any); ok {
		n, _ := int64At(obj, "series.count")
		return n
	}
	if n, _ := int64At(obj, "count"); n != 0 {
		return n
	}
	return int64(1)
}

// eventTarget is "kind/name" of the involved object, lower-case kind.
func eventTarget(obj map[string]any) any {
	kind := strings.ToLower(stringAt(obj, "involvedObject.kind"))
	if name := stringAt(obj, "involvedObject.name"); name != "" {
		return fmt.Sprintf("%s/%s", kind, name)
	}
	return kind
}

// eventSource is "component, host", each falling back to the reporting
// controller and instance; without a host it is just the component.
func eventSource(obj map[string]any) any {
	component := firstNonEmpty(stringAt(obj, "source.component"), stringAt(obj, "reportingComponent"))
	host := firstNonEmpty(stringAt(obj, "source.host"), stringAt(obj, "reportingInstance"))
	if host == "" {
		return component
	}
	return component + ", " + host
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// nameColumn is kube's trailing, wide-only Name column of events.
func nameColumn() resource.Column {
	c := column("Name", metav1.ObjectMeta{}.SwaggerDoc()["name"], 1, stringCell("metadata.name"))
	c.Format = "name"
	return c
}
