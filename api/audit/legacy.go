package audit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// legacyLine is kube-apiserver's one-line text form of an event
// (--audit-log-format=legacy).
func legacyLine(ev *auditv1.Event) string {
	username, groups := "<none>", "<none>"
	if ev.User.Username != "" {
		username = ev.User.Username
		if len(ev.User.Groups) > 0 {
			groups = quotedList(ev.User.Groups)
		}
	}
	asUser, asGroups := "<self>", "<lookup>"
	if ev.ImpersonatedUser != nil {
		asUser = ev.ImpersonatedUser.Username
		if ev.ImpersonatedUser.Groups != nil {
			asGroups = quotedList(ev.ImpersonatedUser.Groups)
		}
	}
	namespace := "<none>"
	if ev.ObjectRef != nil && ev.ObjectRef.Namespace != "" {
		namespace = ev.ObjectRef.Namespace
	}
	response := "<deferred>"
	if ev.ResponseStatus != nil {
		response = strconv.Itoa(int(ev.ResponseStatus.Code))
	}
	ip := "<unknown>"
	if len(ev.SourceIPs) > 0 {
		ip = ev.SourceIPs[0]
	}
	return fmt.Sprintf("%s AUDIT: id=%q stage=%q ip=%q method=%q user=%q groups=%q as=%q asgroups=%q user-agent=%q namespace=%q uri=%q response=\"%s\"",
		ev.RequestReceivedTimestamp.Format(time.RFC3339Nano), ev.AuditID, ev.Stage, ip, ev.Verb, username, groups, asUser, asGroups, ev.UserAgent, namespace, ev.RequestURI, response)
}

// quotedList is kube's rendering of a list of names: each quoted, joined
// by commas.
func quotedList(in []string) string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = strconv.Quote(s)
	}
	return strings.Join(out, ",")
}
