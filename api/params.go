package api

import (
	"net/http"
	"net/url"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/raftapi/raftapi/api/resource"
	"github.com/raftapi/raftapi/raftstore"
)

// query holds the read parameters of a get, list or watch request.
type query struct {
	rv, match, cont   string
	rvSet             bool
	limit             int64
	labels            labels.Selector
	fields            fields.Selector
	watch             bool
	bookmarks         bool
	sendInitialEvents *bool
	timeoutSeconds    int64
}

var listGK = schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}

func parseQuery(r *http.Request, res *resource.Resource) (*query, error) {
	v := r.URL.Query()
	q := &query{rv: v.Get("resourceVersion"), match: v.Get("resourceVersionMatch"), cont: v.Get("continue")}
	_, q.rvSet = v["resourceVersion"]
	q.rvSet = q.rvSet && q.rv != ""
	if q.rvSet {
		if _, err := strconv.ParseUint(q.rv, 10, 64); err != nil {
			return nil, apierrors.NewBadRequest("invalid resource version: " + q.rv)
		}
	}
	var err error
	if q.limit, err = intParam(v, "limit"); err != nil {
		return nil, err
	}
	if q.timeoutSeconds, err = intParam(v, "timeoutSeconds"); err != nil {
		return nil, err
	}
	if q.watch, err = boolParam(v, "watch"); err != nil {
		return nil, err
	}
	if q.bookmarks, err = boolParam(v, "allowWatchBookmarks"); err != nil {
		return nil, err
	}
	if s, ok := v["sendInitialEvents"]; ok && len(s) > 0 {
		b, err := strconv.ParseBool(s[0])
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid sendInitialEvents: " + s[0])
		}
		q.sendInitialEvents = &b
	}
	if q.labels, err = labels.Parse(v.Get("labelSelector")); err != nil {
		return nil, apierrors.NewBadRequest("unable to parse requirement: " + err.Error())
	}
	if q.fields, err = fields.ParseSelector(v.Get("fieldSelector")); err != nil {
		return nil, apierrors.NewBadRequest("invalid field selector: " + err.Error())
	}
	if err := checkFields(q.fields, res); err != nil {
		return nil, err
	}
	return q, nil
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

func (q *query) revision() uint64 {
	n, _ := strconv.ParseUint(q.rv, 10, 64)
	return n
}

// getOptions maps a get's resourceVersion: unset → Most Recent, "0" → Any,
// N → Not older than N.
func (q *query) getOptions() raftstore.ReadOptions {
	switch {
	case !q.rvSet:
		return raftstore.ReadOptions{Consistency: raftstore.MostRecent}
	case q.rv == "0":
		return raftstore.ReadOptions{Consistency: raftstore.Any}
	}
	return raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: q.revision()}
}

func invalidList(path, value, detail string) error {
	return apierrors.NewInvalid(listGK, "", field.ErrorList{field.Invalid(field.NewPath(path), value, detail)})
}

// listOptions maps a list's parameters by the semantics table of
// DESIGN.md, rejecting the invalid combinations as kube-apiserver does.
func (q *query) listOptions() (raftstore.ReadOptions, error) {
	if q.sendInitialEvents != nil {
		return raftstore.ReadOptions{}, invalidList("sendInitialEvents", strconv.FormatBool(*q.sendInitialEvents), "sendInitialEvents is forbidden for list")
	}
	if err := q.validateMatch(); err != nil {
		return raftstore.ReadOptions{}, err
	}
	if q.cont != "" {
		if q.rvSet && q.rv != "0" {
			return raftstore.ReadOptions{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		return raftstore.ReadOptions{}, nil
	}
	switch {
	case !q.rvSet:
		return raftstore.ReadOptions{Consistency: raftstore.MostRecent}, nil
	case q.rv == "0":
		return raftstore.ReadOptions{Consistency: raftstore.Any}, nil
	case q.match == string(metav1.ResourceVersionMatchExact) || (q.match == "" && q.limit > 0):
		return raftstore.ReadOptions{Consistency: raftstore.Exact, Revision: q.revision()}, nil
	}
	return raftstore.ReadOptions{Consistency: raftstore.NotOlderThan, Revision: q.revision()}, nil
}

func (q *query) validateMatch() error {
	switch metav1.ResourceVersionMatch(q.match) {
	case "":
		return nil
	case metav1.ResourceVersionMatchExact, metav1.ResourceVersionMatchNotOlderThan:
	default:
		return invalidList("resourceVersionMatch", q.match, "must be one of NotOlderThan, Exact")
	}
	if q.cont != "" {
		return invalidList("resourceVersionMatch", q.match, "resourceVersionMatch is forbidden when continue is provided")
	}
	if !q.rvSet {
		return invalidList("resourceVersionMatch", q.match, "resourceVersionMatch is forbidden unless resourceVersion is provided")
	}
	if q.match == string(metav1.ResourceVersionMatchExact) && q.rv == "0" {
		return invalidList("resourceVersionMatch", q.match, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"")
	}
	return nil
}
