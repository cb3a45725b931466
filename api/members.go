package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/api/resource"
)

// MemberLister lists the cluster's members; the cluster layer implements
// it. It is called once per request and may contact other nodes, so it
// must honour ctx.
type MemberLister interface {
	Members(ctx context.Context) ([]Member, error)
}

// Member is one node of the cluster as the members API shows it.
type Member struct {
	Name         string
	PeerAddress  string
	APIAddress   string
	Suffrage     string // Voter, Nonvoter
	Role         string // Leader, Follower
	LastContact  time.Time
	AppliedIndex uint64
	Healthy      bool
	// Term and Leader are the member's own view: its current raft term
	// and the leader it follows ("" when it knows none).
	Term   uint64
	Leader string
	// DBSize is the size in bytes of the member's databases on disk
	// (state and raft log).
	DBSize int64
}

// membersGroup is the API group of the read-only members resource.
var membersGV = schema.GroupVersion{Group: "raftapi.io", Version: "v1"}

var membersResource = &resource.Resource{Group: membersGV.Group, Version: membersGV.Version, Kind: "Member", ListKind: "MemberList",
	Plural: "members", Singular: "member", Verbs: metav1.Verbs{"get", "list"}}

// memberObject is the wire form of a Member.
type memberObject struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Status          memberStatus      `json:"status"`
}

type memberStatus struct {
	PeerAddress  string      `json:"peerAddress"`
	APIAddress   string      `json:"apiAddress,omitempty"`
	Suffrage     string      `json:"suffrage"`
	Role         string      `json:"role"`
	LastContact  metav1.Time `json:"lastContact,omitempty"`
	AppliedIndex uint64      `json:"appliedIndex"`
	Healthy      bool        `json:"healthy"`
	Term         uint64      `json:"term,omitempty"`
	Leader       string      `json:"leader,omitempty"`
	DBSize       int64       `json:"dbSize,omitempty"`
}

func toMemberObject(m Member) memberObject {
	return memberObject{
		TypeMeta: metav1.TypeMeta{Kind: "Member", APIVersion: membersGV.String()},
		Metadata: metav1.ObjectMeta{Name: m.Name},
		Status: memberStatus{PeerAddress: m.PeerAddress, APIAddress: m.APIAddress, Suffrage: m.Suffrage, Role: m.Role,
			LastContact: metav1.NewTime(m.LastContact), AppliedIndex: m.AppliedIndex, Healthy: m.Healthy,
			Term: m.Term, Leader: m.Leader, DBSize: m.DBSize},
	}
}

func (s *Server) memberRoutes(router *mux.Router) {
	if s.opts.Members == nil {
		return
	}
	base := "/apis/" + membersGV.Group + "/" + membersGV.Version
	router.HandleFunc(base+"/members", s.listMembers).Methods(http.MethodGet)
	router.HandleFunc(base+"/members/{name}", s.getMember).Methods(http.MethodGet)
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) {
	members, err := s.opts.Members.Members(r.Context())
	if err != nil {
		handlers.WriteStatus(w, apierrors.NewServiceUnavailable(err.Error()))
		return
	}
	if wantsTable(r) {
		handlers.WriteJSON(w, http.StatusOK, memberTable(members))
		return
	}
	list := struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ListMeta `json:"metadata"`
		Items           []memberObject  `json:"items"`
	}{TypeMeta: metav1.TypeMeta{Kind: "MemberList", APIVersion: membersGV.String()}, Items: []memberObject{}}
	list.Metadata.ResourceVersion = strconv.FormatUint(s.store.Revision(), 10)
	for _, m := range members {
		list.Items = append(list.Items, toMemberObject(m))
	}
	handlers.WriteJSON(w, http.StatusOK, list)
}

func (s *Server) getMember(w http.ResponseWriter, r *http.Request) {
	name := mux.Vars(r)["name"]
	members, err := s.opts.Members.Members(r.Context())
	if err != nil {
		handlers.WriteStatus(w, apierrors.NewServiceUnavailable(err.Error()))
		return
	}
	for _, m := range members {
		if m.Name != name {
			continue
		}
		if wantsTable(r) {
			handlers.WriteJSON(w, http.StatusOK, memberTable([]Member{m}))
			return
		}
		handlers.WriteJSON(w, http.StatusOK, toMemberObject(m))
		return
	}
	handlers.WriteStatus(w, apierrors.NewNotFound(membersResource.GroupResource(), name))
}

// wantsTable reports whether the client asked for a meta.k8s.io Table.
func wantsTable(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if strings.Contains(part, "as=Table") && strings.Contains(part, "g=meta.k8s.io") {
			return true
		}
	}
	return false
}

func memberTable(members []Member) *metav1.Table {
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Member name"},
			{Name: "Role", Type: "string", Description: "Leader or Follower"},
			{Name: "Suffrage", Type: "string", Description: "Voter or Nonvoter"},
			{Name: "Healthy", Type: "boolean", Description: "Answers and knows a leader"},
			{Name: "Applied", Type: "integer", Description: "Applied index"},
			{Name: "Peer", Type: "string", Description: "Peer address"},
			{Name: "API", Type: "string", Description: "API address"},
		},
	}
	for _, m := range members {
		obj := toMemberObject(m)
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{m.Name, m.Role, m.Suffrage, m.Healthy, int64(m.AppliedIndex), m.PeerAddress, m.APIAddress},
			Object: runtime.RawExtension{Object: &metav1.PartialObjectMetadata{TypeMeta: obj.TypeMeta, ObjectMeta: obj.Metadata}},
		})
	}
	return t
}
