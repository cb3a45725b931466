package audit

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	apirequest "github.com/raftapi/raftapi/api/request"
)

// kube-apiserver cuts longer User-Agent headers.
const (
	maxUserAgentLength      = 1024
	userAgentTruncateSuffix = "...TRUNCATED"
)

// newEvent is the metadata of a request's event, as kube's
// LogRequestMetadata fills it: who (the authenticated user; none after a
// failed authentication), what (verb, URI, the object for a resource
// request), from where (X-Forwarded-For, X-Real-Ip, then the peer) and
// when.
func newEvent(r *http.Request, id string, received time.Time, level auditv1.Level, attrs authorizer.Attributes) auditv1.Event {
	ev := auditv1.Event{
		TypeMeta:                 metav1.TypeMeta{Kind: "Event", APIVersion: auditv1.SchemeGroupVersion.String()},
		Level:                    level,
		AuditID:                  types.UID(id),
		RequestURI:               r.URL.RequestURI(),
		Verb:                     attrs.GetVerb(),
		UserAgent:                userAgent(r),
		RequestReceivedTimestamp: metav1.NewMicroTime(received),
	}
	for _, ip := range utilnet.SourceIPs(r) {
		ev.SourceIPs = append(ev.SourceIPs, ip.String())
	}
	if u := attrs.GetUser(); u != nil {
		ev.User = userInfo(u)
	}
	if attrs.IsResourceRequest() {
		ev.ObjectRef = &auditv1.ObjectReference{
			Namespace:   attrs.GetNamespace(),
			Name:        attrs.GetName(),
			Resource:    attrs.GetResource(),
			Subresource: attrs.GetSubresource(),
			APIGroup:    attrs.GetAPIGroup(),
			APIVersion:  attrs.GetAPIVersion(),
		}
	}
	return ev
}

// userInfo is u as the event records it.
func userInfo(u user.Info) authnv1.UserInfo {
	out := authnv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	for k, v := range u.GetExtra() {
		if out.Extra == nil {
			out.Extra = map[string]authnv1.ExtraValue{}
		}
		out.Extra[k] = authnv1.ExtraValue(v)
	}
	return out
}

// userAgent is r's User-Agent, cut as kube cuts it.
func userAgent(r *http.Request) string {
	ua := r.UserAgent()
	if len(ua) > maxUserAgentLength {
		ua = ua[:maxUserAgentLength] + userAgentTruncateSuffix
	}
	return ua
}

// authMethods names the credentials a request that failed authentication
// carried, in kube's words.
func authMethods(r *http.Request) string {
	var methods []string
	if _, _, ok := r.BasicAuth(); ok {
		methods = append(methods, "basic")
	}
	parts := strings.Split(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if len(parts) > 1 && strings.ToLower(parts[0]) == "bearer" {
		methods = append(methods, "bearer")
	}
	if token, _ := apirequest.Query(r, "access_token"); strings.TrimSpace(token) != "" {
		methods = append(methods, "access_token")
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		methods = append(methods, "x509")
	}
	if len(methods) > 0 {
		return fmt.Sprintf("Authentication failed, attempted: %s", strings.Join(methods, ", "))
	}
	return "Authentication failed, no credentials provided"
}
