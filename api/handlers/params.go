package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// query holds the read parameters of a get, list or watch request.
type query struct {
	list      registry.ListOptions
	watch     bool
	bookmarks bool
	timeout   time.Duration // 0 when timeoutSeconds is unset
}

// parseQuery reads the query parameters of a get, list, watch or
// deletecollection. A malformed number or selector is 400, as
// kube-apiserver answers; a boolean is never malformed.
func parseQuery(r *http.Request, res *resource.Resource) (*query, error) {
	v := r.URL.Query()
	q := &query{list: registry.ListOptions{
		ResourceVersion: v.Get("resourceVersion"), ResourceVersionMatch: v.Get("resourceVersionMatch"), Continue: v.Get("continue"),
	}}
	if rv := q.list.ResourceVersion; rv != "" {
		if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
			return nil, apierrors.NewBadRequest("invalid resource version: " + rv)
		}
	}
	var err error
	if q.list.Limit, err = intParam(v, "limit"); err != nil {
		return nil, err
	}
	if q.timeout, err = timeoutParam(v); err != nil {
		return nil, err
	}
	q.watch = boolParam(v, "watch")
	q.bookmarks = boolParam(v, "allowWatchBookmarks")
	q.list.SendInitialEvents = optionalBoolParam(v, "sendInitialEvents")
	if err := parseSelectors(v, res, &q.list); err != nil {
		return nil, err
	}
	return q, nil
}

// parseSelectors reads labelSelector and fieldSelector; a field selector
// on a field the resource does not index is 400.
func parseSelectors(v url.Values, res *resource.Resource, o *registry.ListOptions) error {
	var err error
	if o.LabelSelector, err = labels.Parse(v.Get("labelSelector")); err != nil {
		return apierrors.NewBadRequest("unable to parse requirement: " + err.Error())
	}
	if o.FieldSelector, err = fields.ParseSelector(v.Get("fieldSelector")); err != nil {
		return apierrors.NewBadRequest("invalid field selector: " + err.Error())
	}
	return registry.CheckFieldSelector(o.FieldSelector, res)
}

func intParam(v url.Values, name string) (int64, error) {
	s := v.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest("invalid " + name + ": " + s)
	}
	return n, nil
}

// maxWatchTimeout caps timeoutSeconds: a duration of more seconds would
// overflow time.Duration. kube-apiserver bounds a watch's life the same
// way, by its own request timeout.
const maxWatchTimeout = 24 * time.Hour

// timeoutParam reads timeoutSeconds, clamped to maxWatchTimeout.
func timeoutParam(v url.Values) (time.Duration, error) {
	n, err := intParam(v, "timeoutSeconds")
	if err != nil || n == 0 {
		return 0, err
	}
	if n >= int64(maxWatchTimeout/time.Second) {
		return maxWatchTimeout, nil
	}
	return time.Duration(n) * time.Second, nil
}

// boolParam reads a boolean parameter as kube-apiserver's parameter
// codec does (runtime.Convert_Slice_string_To_bool): absent, "0" or
// "false" in any case is false; anything else, the empty value
// included, is true. No value is malformed.
func boolParam(v url.Values, name string) bool {
	var b bool
	vals := v[name]
	_ = runtime.Convert_Slice_string_To_bool(&vals, &b, nil) // it fails on nothing
	return b
}

// optionalBoolParam reads a boolean parameter that may be absent (nil);
// present, it reads as boolParam.
func optionalBoolParam(v url.Values, name string) *bool {
	vals, ok := v[name]
	if !ok || len(vals) == 0 {
		return nil
	}
	b := boolParam(v, name)
	return &b
}
