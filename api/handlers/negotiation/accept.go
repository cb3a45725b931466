package negotiation

import (
	"mime"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/raftapi/raftapi/api/codec"
)

// Accept is one entry of an Accept header.
type Accept struct {
	// Type is the media type, e.g. application/json or */*.
	Type string
	// Params are its parameters (as, g, v, profile, ...) without q. They
	// may be shared with other parses of the same header: read only.
	Params map[string]string
	// Q is its quality, 1 when absent.
	Q float64
}

// ParseAccept returns the entries of an Accept header, highest quality
// first, stable among equals. Malformed entries are skipped.
func ParseAccept(h string) []Accept {
	out := ParseAcceptInOrder(h)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Q > out[j].Q })
	return out
}

// ParseAcceptInOrder returns the entries of an Accept header in the order
// they are listed, for callers that rank them by their own rules.
// Malformed entries are skipped.
func ParseAcceptInOrder(h string) []Accept {
	if cached, ok := acceptCache.Load(h); ok {
		return slices.Clone(cached.([]Accept))
	}
	out := parseAcceptInOrder(h)
	if len(h) <= maxCachedAccept && acceptCached.Add(1) <= maxCachedAccepts {
		acceptCache.Store(h, slices.Clone(out))
	}
	return out
}

// A client sends the same Accept header with every request, and parsing
// it (a MIME parse per entry) took a twentieth of a node's CPU under a
// read load: the parsed forms of the first maxCachedAccepts distinct
// headers (of at most maxCachedAccept bytes) are kept. Callers get their
// own slice; the Params maps are shared and only ever read.
var (
	acceptCache  sync.Map // header → []Accept
	acceptCached atomic.Int64
)

const (
	maxCachedAccepts = 256
	maxCachedAccept  = 1024
)

func parseAcceptInOrder(h string) []Accept {
	var out []Accept
	for _, part := range strings.Split(h, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if a, ok := parseEntry(part); ok {
			out = append(out, a)
		}
	}
	return out
}

// parseEntry parses one Accept entry. The parameters follow the MIME
// rules; the media type may also hold characters MIME does not allow in
// a token, such as the "@" of the OpenAPI protobuf types clients ask for
// (application/com.github.proto-openapi.spec.v2@v1.0+protobuf), as
// kube-apiserver's parser allows.
func parseEntry(part string) (Accept, bool) {
	typ, rest, _ := strings.Cut(part, ";")
	typ = strings.ToLower(strings.TrimSpace(typ))
	major, minor, ok := strings.Cut(typ, "/")
	if !ok || major == "" || minor == "" || strings.ContainsAny(minor, " \t\"/") || strings.ContainsAny(major, " \t\"") {
		return Accept{}, false
	}
	_, params, err := mime.ParseMediaType("x/x;" + rest)
	if err != nil {
		return Accept{}, false
	}
	return Accept{Type: typ, Params: params, Q: quality(params)}, true
}

// quality reads and removes the q parameter; a missing or malformed one
// is 1.
func quality(params map[string]string) float64 {
	s, ok := params["q"]
	if !ok {
		return 1
	}
	delete(params, "q")
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 1
	}
	return f
}

// PrefersProtobuf reports whether the first media type the request
// accepts is Protobuf (as a plain object, not a Table or metadata view).
func PrefersProtobuf(r *http.Request) bool {
	for _, a := range ParseAccept(r.Header.Get("Accept")) {
		if a.Q > 0 {
			return a.Type == codec.MediaProtobuf && a.Params["as"] == ""
		}
	}
	return false
}

// RequestMediaType returns the media type of the request body; an absent
// Content-Type is JSON.
func RequestMediaType(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return codec.MediaJSON, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", codec.UnsupportedMediaType(ct, codec.BodyMediaTypes)
	}
	return mt, nil
}

// AcceptsGzip reports whether the request's Accept-Encoding allows gzip.
func AcceptsGzip(r *http.Request) bool {
	for _, enc := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(enc), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && !zeroQuality(params) {
			return true
		}
	}
	return false
}

// zeroQuality reports whether a coding's parameters say q=0 (refused).
func zeroQuality(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}
