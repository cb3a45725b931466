package apiextensions_test

import (
	"reflect"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/apiextensions"
	"github.com/raftapi/raftapi/api/builtin"
)

// named is a CRD of group requesting names; accepted, when set, are its
// status.acceptedNames.
func named(group string, names apiextensionsv1.CustomResourceDefinitionNames, accepted *apiextensionsv1.CustomResourceDefinitionNames) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: names.Plural + "." + group},
		Spec:       apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Names: names},
	}
	if accepted != nil {
		c.Status.AcceptedNames = *accepted
	}
	return c
}

func names(plural, singular, kind string, short ...string) apiextensionsv1.CustomResourceDefinitionNames {
	return apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: singular, Kind: kind, ListKind: kind + "List", ShortNames: short}
}

func ptr[T any](v T) *T { return &v }

func condition(typ apiextensionsv1.CustomResourceDefinitionConditionType, status apiextensionsv1.ConditionStatus, reason, message string) apiextensionsv1.CustomResourceDefinitionCondition {
	return apiextensionsv1.CustomResourceDefinitionCondition{Type: typ, Status: status, Reason: reason, Message: message}
}

var (
	noConflicts = condition(apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found")
	installing  = condition(apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "Installing", "the initial names have been accepted")
	notAccepted = condition(apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "NotAccepted", "not all names are accepted")
	established = condition(apiextensionsv1.Established, apiextensionsv1.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted")
)

func nameConflict(reason, name string) apiextensionsv1.CustomResourceDefinitionCondition {
	return condition(apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionFalse, reason, `"`+name+`" is already in use`)
}

func TestAcceptNames(t *testing.T) {
	foos := names("foos", "foo", "Foo", "fo")
	tests := []struct {
		name         string
		crd          *apiextensionsv1.CustomResourceDefinition
		others       []*apiextensionsv1.CustomResourceDefinition
		wantAccepted apiextensionsv1.CustomResourceDefinitionNames
		wantNames    apiextensionsv1.CustomResourceDefinitionCondition
		wantEst      apiextensionsv1.CustomResourceDefinitionCondition
	}{
		{
			name: "no conflict", crd: named("example.com", foos, nil),
			others:       []*apiextensionsv1.CustomResourceDefinition{named("example.com", names("bars", "bar", "Bar"), ptr(names("bars", "bar", "Bar")))},
			wantAccepted: foos, wantNames: noConflicts, wantEst: installing,
		},
		{
			name: "plural in use in another group", crd: named("example.com", foos, nil),
			others:       []*apiextensionsv1.CustomResourceDefinition{named("example.org", foos, ptr(foos))},
			wantAccepted: foos, wantNames: noConflicts, wantEst: installing,
		},
		{
			name: "plural conflict", crd: named("example.com", foos, nil),
			others:       []*apiextensionsv1.CustomResourceDefinition{named("example.com", names("bars", "foos", "Bar"), ptr(names("bars", "foos", "Bar")))},
			wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Singular: "foo", Kind: "Foo", ListKind: "FooList", ShortNames: []string{"fo"}},
			wantNames:    nameConflict("PluralConflict", "foos"), wantEst: notAccepted,
		},
		{
			name: "only accepted names count", crd: named("example.com", foos, nil),
			others:       []*apiextensionsv1.CustomResourceDefinition{named("example.com", names("bars", "foos", "Foo", "fo"), nil)},
			wantAccepted: foos, wantNames: noConflicts, wantEst: installing,
		},
		{
			name: "short name conflict", crd: named("example.com", foos, nil),
			others:       []*apiextensionsv1.CustomResourceDefinition{named("example.com", names("bars", "bar", "Bar", "fo"), ptr(names("bars", "bar", "Bar", "fo")))},
			wantAccepted: names("foos", "foo", "Foo"), wantNames: nameConflict("ShortNamesConflict", "fo"), wantEst: notAccepted,
		},
		{
			name: "kind conflict, the last conflict wins", crd: named("example.com", foos, nil),
			others:       []*apiextensionsv1.CustomResourceDefinition{named("example.com", names("bars", "bar", "Foo"), ptr(names("bars", "bar", "Foo")))},
			wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", ShortNames: []string{"fo"}},
			wantNames:    nameConflict("ListKindConflict", "FooList"), wantEst: notAccepted,
		},
		{
			name: "own accepted names stay, a conflicting new one is refused",
			crd: func() *apiextensionsv1.CustomResourceDefinition {
				c := named("example.com", names("foos", "foo2", "Foo"), ptr(foos))
				c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{established}
				return c
			}(),
			others: []*apiextensionsv1.CustomResourceDefinition{
				named("example.com", names("foo2", "bar", "Bar"), ptr(names("foo2", "bar", "Bar"))),
				named("example.com", foos, ptr(foos)), // a stale copy of crd itself
			},
			wantAccepted: names("foos", "foo", "Foo"), wantNames: nameConflict("SingularConflict", "foo2"), wantEst: established,
		},
		{
			name: "plural of a built-in of the group", crd: named("coordination.k8s.io", names("leases", "mylease", "MyLease"), nil),
			wantAccepted: names("", "mylease", "MyLease"), wantNames: nameConflict("PluralConflict", "leases"), wantEst: notAccepted,
		},
		{
			name: "kind of a built-in of the group", crd: named("coordination.k8s.io", names("myleases", "mylease", "Lease"), nil),
			wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "myleases", Singular: "mylease"},
			wantNames:    nameConflict("ListKindConflict", "LeaseList"), wantEst: notAccepted,
		},
		{
			name: "built-in of another group", crd: named("example.com", names("leases", "lease", "Lease"), nil),
			wantAccepted: names("leases", "lease", "Lease"), wantNames: noConflicts, wantEst: installing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			accepted, namesAccepted, est := apiextensions.AcceptNames(tt.crd, tt.others, builtin.Resources())
			if !reflect.DeepEqual(accepted, tt.wantAccepted) {
				t.Errorf("accepted = %+v, want %+v", accepted, tt.wantAccepted)
			}
			if namesAccepted != tt.wantNames {
				t.Errorf("NamesAccepted = %+v, want %+v", namesAccepted, tt.wantNames)
			}
			if est != tt.wantEst {
				t.Errorf("Established = %+v, want %+v", est, tt.wantEst)
			}
		})
	}
}

// TestNamingThenEstablish runs the two controllers' steps on a new CRD
// without conflicts: names accepted, then Established True.
func TestNamingThenEstablish(t *testing.T) {
	c := named("example.com", names("foos", "foo", "Foo"), nil)
	if !apiextensions.NeedsNaming(c) {
		t.Fatal("NeedsNaming of a new CRD = false")
	}
	if _, ok := apiextensions.Establish(c); ok {
		t.Error("Establish before the names are accepted")
	}
	accepted, namesAccepted, est := apiextensions.AcceptNames(c, nil, nil)
	c.Status.AcceptedNames = accepted
	apiextensions.SetCondition(&c.Status, namesAccepted, now)
	apiextensions.SetCondition(&c.Status, est, now)
	if apiextensions.NeedsNaming(c) {
		t.Error("NeedsNaming once the names are accepted = true")
	}
	cond, ok := apiextensions.Establish(c)
	if want := established; !ok || cond != want {
		t.Fatalf("Establish = %+v, %v; want %+v", cond, ok, want)
	}
	apiextensions.SetCondition(&c.Status, cond, now.Add(time.Second))
	if _, ok := apiextensions.Establish(c); ok {
		t.Error("Establish of an established CRD")
	}
}

func TestEstablishInvalidCABundle(t *testing.T) {
	c := named("example.com", names("foos", "foo", "Foo"), nil)
	c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{noConflicts}
	c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{CABundle: []byte("not PEM")}},
	}
	want := condition(apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "InvalidCABundle", "The conversion webhook CABundle is invalid")
	if cond, ok := apiextensions.Establish(c); !ok || cond != want {
		t.Errorf("Establish = %+v, %v; want %+v", cond, ok, want)
	}
}

func TestSetCondition(t *testing.T) {
	t0, t1 := now, now.Add(time.Minute)
	var status apiextensionsv1.CustomResourceDefinitionStatus
	apiextensions.SetCondition(&status, installing, t0)
	apiextensions.SetCondition(&status, notAccepted, t1)
	if got := status.Conditions; len(got) != 1 || got[0].Reason != "NotAccepted" || !got[0].LastTransitionTime.Time.Equal(t0) {
		t.Errorf("same status: conditions = %+v, want NotAccepted at %v", got, t0)
	}
	apiextensions.SetCondition(&status, established, t1)
	if got := status.Conditions; len(got) != 1 || got[0].Status != apiextensionsv1.ConditionTrue || !got[0].LastTransitionTime.Time.Equal(t1) {
		t.Errorf("new status: conditions = %+v, want True at %v", got, t1)
	}
	apiextensions.SetCondition(&status, noConflicts, t1)
	if len(status.Conditions) != 2 || status.Conditions[1].Type != apiextensionsv1.NamesAccepted {
		t.Errorf("new type: conditions = %+v", status.Conditions)
	}
}
