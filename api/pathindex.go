package api

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// pathIndex finds the route of a resource path by splitting the path into
// its segments and looking them up, where mux.Router matches every
// route's pattern in turn: with a few hundred routes (every version of
// every resource, each verb a route), matching their regular expressions
// one after the other took about a twentieth of a write's CPU and more of
// a read's. The index holds the same routes as the router and answers
// as the router would; a request it holds no route for (another method on
// a path it knows, a path it does not know) goes to the router, which
// answers 404 and 405 as it always has.
//
// Patterns are literal segments and variables ({name}) that stand for one
// non-empty segment, as mux's default variable pattern does. A pattern's
// shape is its segment count and which segments are variables; a request
// is looked up once per shape of its segment count, and of the routes
// found the one registered first wins, as in the router.
type pathIndex struct {
	// masks are the distinct shapes of each segment count: a bit per
	// segment, set for a variable.
	masks map[int][]uint64
	// routes by method and skeleton: the pattern with every variable
	// written "{}".
	routes map[string]*indexedRoute
	next   int
}

// indexedRoute is one route of the index.
type indexedRoute struct {
	order    int      // registration order: the first registered wins
	mask     uint64   // which segments are variables
	names    []string // the variables' names, in segment order
	template string   // the pattern, for tests and logs
	h        http.Handler
}

// maxIndexedSegments bounds the segments a pattern of the index may have
// (a bit of the mask each); resource paths have at most eight.
const maxIndexedSegments = 64

func newPathIndex() *pathIndex {
	return &pathIndex{masks: map[int][]uint64{}, routes: map[string]*indexedRoute{}}
}

// add registers h for method on pattern, unless the pattern cannot be
// indexed (the router alone then serves it).
func (x *pathIndex) add(method, pattern string, h http.Handler) {
	segs, ok := splitPath(pattern)
	if !ok || len(segs) > maxIndexedSegments {
		return
	}
	r := &indexedRoute{order: x.next, template: pattern, h: h}
	for i, s := range segs {
		if name, isVar := strings.CutPrefix(s, "{"); isVar {
			name, ok = strings.CutSuffix(name, "}")
			if !ok || name == "" || strings.ContainsAny(name, ":{}") {
				return // a variable with its own pattern, or not one at all
			}
			r.mask |= 1 << i
			r.names = append(r.names, name)
		} else if strings.ContainsAny(s, "{}") {
			return
		}
	}
	key := string(appendSkeleton(nil, method, segs, r.mask))
	if _, taken := x.routes[key]; taken {
		return // the router serves the first one registered, as here
	}
	x.next++
	x.routes[key] = r
	if !containsMask(x.masks[len(segs)], r.mask) {
		x.masks[len(segs)] = append(x.masks[len(segs)], r.mask)
	}
}

// lookup returns the route of method and path, with the path's variables;
// nil when the index holds none.
func (x *pathIndex) lookup(method, path string) (*indexedRoute, map[string]string) {
	segs, ok := splitPath(path)
	if !ok {
		return nil, nil
	}
	var best *indexedRoute
	var buf [256]byte
	for _, mask := range x.masks[len(segs)] {
		r := x.routes[string(appendSkeleton(buf[:0], method, segs, mask))]
		if r != nil && (best == nil || r.order < best.order) {
			best = r
		}
	}
	if best == nil {
		return nil, nil
	}
	vars := make(map[string]string, len(best.names))
	n := 0
	for i, s := range segs {
		if best.mask&(1<<i) != 0 {
			vars[best.names[n]] = s
			n++
		}
	}
	return best, vars
}

// serve serves r when the index holds its route; false when it does not.
func (x *pathIndex) serve(w http.ResponseWriter, r *http.Request) bool {
	route, vars := x.lookup(r.Method, r.URL.Path)
	if route == nil {
		return false
	}
	route.h.ServeHTTP(w, mux.SetURLVars(r, vars))
	return true
}

// splitPath returns the segments of an absolute path; false when one is
// empty (a trailing or doubled slash), which no route of the index
// matches.
func splitPath(p string) ([]string, bool) {
	rest, ok := strings.CutPrefix(p, "/")
	if !ok || rest == "" {
		return nil, false
	}
	segs := strings.Split(rest, "/")
	for _, s := range segs {
		if s == "" {
			return nil, false
		}
	}
	return segs, true
}

// appendSkeleton appends the index key of method and segs to b, with the
// segments mask marks as variables written "{}".
func appendSkeleton(b []byte, method string, segs []string, mask uint64) []byte {
	b = append(b, method...)
	for i, s := range segs {
		b = append(b, '/')
		if mask&(1<<i) != 0 {
			s = "{}"
		}
		b = append(b, s...)
	}
	return b
}

func containsMask(masks []uint64, m uint64) bool {
	for _, x := range masks {
		if x == m {
			return true
		}
	}
	return false
}
