package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

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
// deletecollection. A malformed value is 400, as kube-apiserver answers.
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
	if q.watch, err = boolParam(v, "watch"); err != nil {
		return nil, err
	}
	if q.bookmarks, err = boolParam(v, "allowWatchBookmarks"); err != nil {
		return nil, err
	}
	if q.list.SendInitialEvents, err = optionalBoolParam(v, "sendInitialEvents"); err != nil {
		return nil, err
	}
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

func boolParam(v url.Values, name string) (bool, error) {
	s := v.Get(name)
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, apierrors.NewBadRequest("invalid " + name + ": " + s)
	}
	return b, nil
}

// optionalBoolParam reads a boolean parameter that may be absent (nil);
// present, it must parse.
func optionalBoolParam(v url.Values, name string) (*bool, error) {
	s, ok := v[name]
	if !ok || len(s) == 0 {
		return nil, nil
	}
	b, err := strconv.ParseBool(s[0])
	if err != nil {
		return nil, apierrors.NewBadRequest("invalid " + name + ": " + s[0])
	}
	return &b, nil
}
