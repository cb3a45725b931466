package accessreview

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/raftapi/raftapi/api/request"
	"github.com/raftapi/raftapi/api/resource"
)

// fakeAuthorizer allows alice to read configmaps in "default", denies
// everyone secrets, fails on the path /boom and has no opinion
// otherwise; it records the attributes it was asked about.
type fakeAuthorizer struct {
	authorizer.AuthorizerFunc
	last authorizer.Attributes
}

func newFakeAuthorizer() *fakeAuthorizer {
	f := &fakeAuthorizer{}
	f.AuthorizerFunc = func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		f.last = a
		switch {
		case a.GetPath() == "/boom":
			return authorizer.DecisionNoOpinion, "", errors.New("policy unavailable")
		case a.GetResource() == "secrets":
			return authorizer.DecisionDeny, "secrets are off limits", nil
		case a.GetUser().GetName() == "alice" && a.GetResource() == "configmaps" && a.GetNamespace() == "default" && a.IsReadOnly():
			return authorizer.DecisionAllow, "alice reads configmaps", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	}
	return f
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"team": {"x"}}}

func asAlice() context.Context { return request.WithUser(context.Background(), alice) }

// mustStatus returns err's Status, failing unless its code is code and
// its message contains msg.
func mustStatus(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a Status %d", err, err, code)
	}
	if se.ErrStatus.Code != code || !strings.Contains(se.ErrStatus.Message, msg) {
		t.Fatalf("Status %d %q, want %d containing %q", se.ErrStatus.Code, se.ErrStatus.Message, code, msg)
	}
}

func call(t *testing.T, res *resource.Resource, ctx context.Context, ns string, obj runtime.Object) (runtime.Object, error) {
	t.Helper()
	if res.Review == nil || !slices.Equal(res.Verbs, metav1.Verbs{"create"}) {
		t.Fatalf("%s is not a create-only review", res.Kind)
	}
	return res.Review(ctx, ns, obj)
}

func TestSubjectAccessReview(t *testing.T) {
	authz := newFakeAuthorizer()
	res := SubjectAccessReviewResource(authz)
	ask := func(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
		t.Helper()
		out, err := call(t, res, context.Background(), "", &authorizationv1.SubjectAccessReview{Spec: spec})
		if err != nil {
			t.Fatal(err)
		}
		sar := out.(*authorizationv1.SubjectAccessReview)
		if sar.Kind != "SubjectAccessReview" || sar.APIVersion != "authorization.k8s.io/v1" {
			t.Errorf("answer typed %s %s", sar.APIVersion, sar.Kind)
		}
		return sar.Status
	}
	read := &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "configmaps"}
	if st := ask(authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: read}); !st.Allowed || st.Denied || st.Reason != "alice reads configmaps" {
		t.Errorf("alice list configmaps: %+v", st)
	}
	if u := authz.last.GetUser(); u.GetName() != "alice" || authz.last.GetAPIVersion() != "*" {
		t.Errorf("authorizer asked about %+v version %q", u, authz.last.GetAPIVersion())
	}
	if st := ask(authorizationv1.SubjectAccessReviewSpec{User: "bob", ResourceAttributes: read}); st.Allowed || st.Denied {
		t.Errorf("bob list configmaps (no opinion): %+v", st)
	}
	secrets := &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "secrets"}
	if st := ask(authorizationv1.SubjectAccessReviewSpec{Groups: []string{"dev"}, ResourceAttributes: secrets}); st.Allowed || !st.Denied || st.Reason != "secrets are off limits" {
		t.Errorf("dev get secrets (denied): %+v", st)
	}
	boom := &authorizationv1.NonResourceAttributes{Path: "/boom", Verb: "get"}
	if st := ask(authorizationv1.SubjectAccessReviewSpec{User: "alice", NonResourceAttributes: boom}); st.Allowed || st.EvaluationError != "policy unavailable" {
		t.Errorf("get /boom (error): %+v", st)
	}
	extra := authorizationv1.SubjectAccessReviewSpec{User: "carol", UID: "u-3", Groups: []string{"g"},
		Extra: map[string]authorizationv1.ExtraValue{"scopes": {"a"}}, ResourceAttributes: read}
	ask(extra)
	if u := authz.last.GetUser(); u.GetUID() != "u-3" || !slices.Equal(u.GetGroups(), []string{"g"}) || !slices.Equal(u.GetExtra()["scopes"], []string{"a"}) {
		t.Errorf("authorizer asked about %+v, want carol as the spec says", u)
	}
}

func TestSubjectAccessReviewValidation(t *testing.T) {
	res := SubjectAccessReviewResource(newFakeAuthorizer())
	read := &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}
	for _, tc := range []struct {
		name string
		sar  authorizationv1.SubjectAccessReview
		msg  string
	}{
		{"no attributes", authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a"}},
			`.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`},
		{"both attributes", authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: read,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/x", Verb: "get"}}},
			`spec.nonResourceAttributes: Invalid value: {"path":"/x","verb":"get"}: cannot be specified in combination with resourceAttributes`},
		{"no subject", authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: read}},
			`spec.user: Invalid value: "": at least one of user or group must be specified`},
		{"metadata", authorizationv1.SubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: read}},
			`metadata: Invalid value:`},
		{"selector both forms", authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "list", Resource: "pods", LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "a=b",
				Requirements: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists}}}}}},
			`spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements`},
		{"empty field selector", authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: "list", Resource: "pods", FieldSelector: &authorizationv1.FieldSelectorAttributes{}}}},
			`spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, res, context.Background(), "", &tc.sar)
			mustStatus(t, err, http.StatusUnprocessableEntity, tc.msg)
		})
	}
	// A namespace in the object of a cluster-scoped review is dropped.
	sar := &authorizationv1.SubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: read}}
	if _, err := call(t, res, context.Background(), "", sar); err != nil {
		t.Errorf("a namespace in a SubjectAccessReview: %v", err)
	}
}

func TestSelectorsReachTheAuthorizer(t *testing.T) {
	authz := newFakeAuthorizer()
	res := SubjectAccessReviewResource(authz)
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", ResourceAttributes: &authorizationv1.ResourceAttributes{
		Verb: "list", Resource: "pods",
		LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "app=web"},
		FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{
			{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"n1"}},
			{Key: "x", Operator: metav1.FieldSelectorOpExists},
		}},
	}}}
	out, err := call(t, res, context.Background(), "", sar)
	if err != nil {
		t.Fatal(err)
	}
	labels, lerr := authz.last.GetLabelSelector()
	fields, ferr := authz.last.GetFieldSelector()
	if lerr != nil || len(labels) != 1 || labels[0].Key() != "app" {
		t.Errorf("label selector %v, %v", labels, lerr)
	}
	if ferr == nil || len(fields) != 1 || fields[0].Field != "spec.nodeName" || fields[0].Operator != selection.Equals {
		t.Errorf("field selector %v, %v: want the In requirement, and an error for Exists", fields, ferr)
	}
	if got := out.(*authorizationv1.SubjectAccessReview).Status.EvaluationError; got != "spec.resourceAttributes.fieldSelector partially ignored due to parse error" {
		t.Errorf("evaluationError %q", got)
	}
}

func TestLocalSubjectAccessReview(t *testing.T) {
	res := LocalSubjectAccessReviewResource(newFakeAuthorizer())
	if !res.Namespaced {
		t.Fatal("localsubjectaccessreviews must be namespaced")
	}
	read := func(ns string) *authorizationv1.ResourceAttributes {
		return &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "configmaps"}
	}
	out, err := call(t, res, context.Background(), "default", &authorizationv1.LocalSubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: read("default")}})
	if err != nil {
		t.Fatal(err)
	}
	if lsar := out.(*authorizationv1.LocalSubjectAccessReview); !lsar.Status.Allowed || lsar.Namespace != "default" || lsar.Kind != "LocalSubjectAccessReview" {
		t.Errorf("alice get configmaps in default: %+v", lsar)
	}
	_, err = call(t, res, context.Background(), "default", &authorizationv1.LocalSubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: read("other")}})
	mustStatus(t, err, http.StatusUnprocessableEntity, `spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`)
	_, err = call(t, res, context.Background(), "default", &authorizationv1.LocalSubjectAccessReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: "other"},
		Spec:       authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: read("other")}})
	mustStatus(t, err, http.StatusBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
	_, err = call(t, res, context.Background(), "default", &authorizationv1.LocalSubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/x"}}})
	mustStatus(t, err, http.StatusUnprocessableEntity, `spec.nonResourceAttributes: Invalid value: {"path":"/x"}: disallowed on this kind of request`)
}

func TestSelfSubjectAccessReview(t *testing.T) {
	authz := newFakeAuthorizer()
	res := SelfSubjectAccessReviewResource(authz)
	sar := func() *authorizationv1.SelfSubjectAccessReview {
		return &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "watch", Resource: "configmaps"}}}
	}
	out, err := call(t, res, asAlice(), "", sar())
	if err != nil {
		t.Fatal(err)
	}
	if st := out.(*authorizationv1.SelfSubjectAccessReview).Status; !st.Allowed {
		t.Errorf("alice watch configmaps: %+v", st)
	}
	if authz.last.GetUser() != alice {
		t.Errorf("authorizer asked about %+v, want the request's user", authz.last.GetUser())
	}
	_, err = call(t, res, context.Background(), "", sar())
	mustStatus(t, err, http.StatusBadRequest, "no user present on request")
	_, err = call(t, res, asAlice(), "", &authorizationv1.SelfSubjectAccessReview{})
	mustStatus(t, err, http.StatusUnprocessableEntity, "exactly one of nonResourceAttributes or resourceAttributes must be specified")
}

func TestSelfSubjectRulesReview(t *testing.T) {
	rules := &fakeRules{}
	res := SelfSubjectRulesReviewResource(rules)
	out, err := call(t, res, asAlice(), "", &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	srr := out.(*authorizationv1.SelfSubjectRulesReview)
	st := srr.Status
	if rules.user != alice || rules.namespace != "default" {
		t.Errorf("resolver asked about %v in %q", rules.user, rules.namespace)
	}
	if len(st.ResourceRules) != 1 || !slices.Equal(st.ResourceRules[0].Resources, []string{"configmaps"}) || !slices.Equal(st.ResourceRules[0].ResourceNames, []string{"c"}) ||
		len(st.NonResourceRules) != 1 || !slices.Equal(st.NonResourceRules[0].NonResourceURLs, []string{"/healthz"}) || st.Incomplete || st.EvaluationError != "" {
		t.Errorf("status %+v", st)
	}
	if srr.Kind != "SelfSubjectRulesReview" || srr.Spec.Namespace != "" {
		t.Errorf("answer %s with spec %+v, want kube's: the status alone", srr.Kind, srr.Spec)
	}
	out, err = call(t, res, asAlice(), "", &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "broken"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := out.(*authorizationv1.SelfSubjectRulesReview).Status; !st.Incomplete || st.EvaluationError != "a rolebinding refers to a missing role" || st.ResourceRules == nil {
		t.Errorf("broken namespace: %+v", st)
	}
	_, err = call(t, res, asAlice(), "", &authorizationv1.SelfSubjectRulesReview{})
	mustStatus(t, err, http.StatusBadRequest, "no namespace on request")
	_, err = call(t, res, context.Background(), "", &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}})
	mustStatus(t, err, http.StatusBadRequest, "no user present on request")
}

// fakeRules gives everyone read access to configmap c and /healthz, and
// is incomplete in the namespace "broken".
type fakeRules struct {
	user      user.Info
	namespace string
}

func (f *fakeRules) RulesFor(_ context.Context, u user.Info, ns string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	f.user, f.namespace = u, ns
	if ns == "broken" {
		return nil, nil, true, errors.New("a rolebinding refers to a missing role")
	}
	return []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{
			Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"c"}}},
		[]authorizer.NonResourceRuleInfo{&authorizer.DefaultNonResourceRuleInfo{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}},
		false, nil
}

func TestSelfSubjectReview(t *testing.T) {
	res := SelfSubjectReviewResource()
	out, err := call(t, res, asAlice(), "", &authenticationv1.SelfSubjectReview{})
	if err != nil {
		t.Fatal(err)
	}
	ssr := out.(*authenticationv1.SelfSubjectReview)
	u := ssr.Status.UserInfo
	if ssr.Kind != "SelfSubjectReview" || ssr.CreationTimestamp.IsZero() || u.Username != "alice" || u.UID != "u-1" ||
		!slices.Equal(u.Groups, alice.Groups) || !slices.Equal(u.Extra["team"], authenticationv1.ExtraValue{"x"}) {
		t.Errorf("review %+v", ssr)
	}
	_, err = call(t, res, context.Background(), "", &authenticationv1.SelfSubjectReview{})
	mustStatus(t, err, http.StatusBadRequest, "no user present on request")
}

func TestResources(t *testing.T) {
	kinds := func(rs []*resource.Resource) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.GroupVersion().String()+"/"+r.Plural)
		}
		return out
	}
	if got := kinds(Resources(nil, nil)); !slices.Equal(got, []string{"authentication.k8s.io/v1/selfsubjectreviews"}) {
		t.Errorf("Resources(nil, nil) = %v", got)
	}
	got := kinds(Resources(newFakeAuthorizer(), &fakeRules{}))
	want := []string{
		"authentication.k8s.io/v1/selfsubjectreviews", "authorization.k8s.io/v1/subjectaccessreviews",
		"authorization.k8s.io/v1/localsubjectaccessreviews", "authorization.k8s.io/v1/selfsubjectaccessreviews",
		"authorization.k8s.io/v1/selfsubjectrulesreviews",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Resources = %v, want %v", got, want)
	}
}
