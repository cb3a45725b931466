package cluster

import (
	"context"
	"net/http"
)

// infoKey is the context key of a request's parsed requestInfo.
type infoKey struct{}

// withRequestInfo parses r's requestInfo once and keeps it in r's
// context, for the filters that each need it (timeout, audit,
// authorization, metrics): the path and query are parsed once per
// request instead of once per filter. Nothing rewrites a request's URL
// after this point.
func withRequestInfo(r *http.Request) *http.Request {
	info := parseRequestInfo(r)
	return r.WithContext(context.WithValue(r.Context(), infoKey{}, &info))
}

// requestInfoOf is r's requestInfo: the one withRequestInfo kept, or
// parsed now.
func requestInfoOf(r *http.Request) requestInfo {
	if info, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		return *info
	}
	return parseRequestInfo(r)
}

// parseOnce is next with each request's requestInfo parsed up front
// (withRequestInfo).
func parseOnce(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, withRequestInfo(r))
	})
}
