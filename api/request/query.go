package request

import (
	"net/http"
	"strings"
)

// Query returns the first value of r's query parameter key, as
// r.URL.Query().Get(key) does, and whether r has the parameter. It parses
// the query only when the raw query could hold key: parsing builds a map
// of every parameter on each call, and the serving chain's filters each
// look for one parameter (watch, timeout, includeObject, access_token)
// that most requests do not carry. A raw query that holds neither key nor
// a '%' cannot name key once parsed: parsing changes names only by
// unescaping %XX and turning '+' into a space, and the keys asked for
// hold neither.
func Query(r *http.Request, key string) (value string, ok bool) {
	raw := r.URL.RawQuery
	if raw == "" || !strings.Contains(raw, key) && !strings.Contains(raw, "%") {
		return "", false
	}
	vs, ok := r.URL.Query()[key]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}
