package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/raftapi/raftapi/api/handlers"
	"github.com/raftapi/raftapi/raftstore"
)

// MembersPath is the admin endpoint that changes the raft configuration,
// served by every node and carried out by the leader:
//
//	POST   MembersPath                 {"name", "peerAddress", "learner"}: add a member
//	DELETE MembersPath/NAME            remove a member
//	POST   MembersPath/NAME/promote    make a learner (non-voter) a voter
//
// Errors are Kubernetes Status objects: 404 for an unknown member, 409
// when it exists already or the change conflicts with the configuration,
// 400 for a malformed request, 503 when no leader can be reached.
const MembersPath = "/raftapi/v1/members"

// AddMemberRequest is the body of POST MembersPath.
type AddMemberRequest struct {
	Name        string `json:"name"`
	PeerAddress string `json:"peerAddress"`
	// Learner adds the member as a non-voter, to be promoted once it has
	// caught up.
	Learner bool `json:"learner,omitempty"`
}

// memberResource names members in Status errors.
var memberResource = schema.GroupResource{Group: "raftapi.io", Resource: "members"}

// promoteLag is how many entries a learner may trail the leader's commit
// index and still be promoted (etcd, similarly, promotes only a learner
// in sync with its leader).
const promoteLag = 1000

// AddMember adds a member to the cluster, as a voter or a learner: the
// node named name may then start, with --initial-cluster-state existing,
// and the leader brings it up to date.
func (n *Node) AddMember(ctx context.Context, req AddMemberRequest) error {
	op := raftstore.OpAddVoter
	if req.Learner {
		op = raftstore.OpAddNonvoter
	}
	return n.store.ChangeMembers(ctx, raftstore.MemberChange{Op: op, Name: req.Name, PeerAddr: req.PeerAddress})
}

// RemoveMember removes member name from the cluster. In a gossip cluster a
// member alive in gossip is refused: the leader would add it back at
// once; it should leave (raftapi leave) or stop first.
func (n *Node) RemoveMember(ctx context.Context, name string) error {
	if n.gossip != nil && n.gossip.alive(name) && name != n.cfg.Name {
		return &raftstore.Error{Code: raftstore.ErrCodeConflict, Key: name, Msg: fmt.Sprintf(
			"member %q is alive in gossip and the leader would add it back: make it leave (raftapi leave) or stop it first", name)}
	}
	return n.store.ChangeMembers(ctx, raftstore.MemberChange{Op: raftstore.OpRemove, Name: name})
}

// PromoteMember makes learner name a voter, once it answers and has
// applied the log to within promoteLag entries of this node's commit
// index.
func (n *Node) PromoteMember(ctx context.Context, name string) error {
	m, err := n.member(name)
	if err != nil {
		return err
	}
	if !m.Voter {
		st, _, err := n.store.PeerStatus(ctx, m.PeerAddr)
		if err != nil {
			return &raftstore.Error{Code: raftstore.ErrCodeConflict, Key: name, Msg: fmt.Sprintf("learner %q does not answer at %s: start it before promoting it", name, m.PeerAddr)}
		}
		if commit := n.store.Status().CommitIndex; st.AppliedIndex+promoteLag < commit {
			return &raftstore.Error{Code: raftstore.ErrCodeConflict, Key: name, Msg: fmt.Sprintf(
				"learner %q has applied %d of %d entries: it can be promoted once it has caught up", name, st.AppliedIndex, commit)}
		}
	}
	return n.store.ChangeMembers(ctx, raftstore.MemberChange{Op: raftstore.OpPromote, Name: name})
}

// member is name's entry in this node's raft configuration.
func (n *Node) member(name string) (raftstore.Member, error) {
	conf, err := n.store.Members()
	if err != nil {
		return raftstore.Member{}, err
	}
	for _, m := range conf {
		if m.Name == name {
			return m, nil
		}
	}
	return raftstore.Member{}, &raftstore.Error{Code: raftstore.ErrCodeNotFound, Key: name, Msg: fmt.Sprintf("member %q not found", name)}
}

// memberAdminHandler serves MembersPath.
func (n *Node) memberAdminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
		rest := strings.Trim(strings.TrimPrefix(r.URL.Path, MembersPath), "/")
		name, action, _ := strings.Cut(rest, "/")
		var err error
		status := http.StatusOK
		switch {
		case r.Method == http.MethodPost && rest == "":
			var req AddMemberRequest
			if err = decodeAddMember(r.Body, &req); err == nil {
				err, status = n.AddMember(ctx, req), http.StatusCreated
				name = req.Name
			}
		case r.Method == http.MethodDelete && name != "" && action == "":
			err = n.RemoveMember(ctx, name)
		case r.Method == http.MethodPost && name != "" && action == "promote":
			err = n.PromoteMember(ctx, name)
		default:
			err = apierrors.NewMethodNotSupported(memberResource, r.Method)
		}
		if err != nil {
			handlers.WriteStatus(w, memberStatusError(err, name))
			return
		}
		handlers.WriteJSON(w, status, map[string]string{"name": name})
	})
}

func decodeAddMember(body io.Reader, req *AddMemberRequest) error {
	dec := json.NewDecoder(io.LimitReader(body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		return apierrors.NewBadRequest("member: " + err.Error())
	}
	if req.Name == "" || req.PeerAddress == "" {
		return apierrors.NewBadRequest("member: name and peerAddress are required")
	}
	return nil
}

// memberStatusError maps a store error to the Status a client sees.
func memberStatusError(err error, name string) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	msg := err.Error()
	var se *raftstore.Error
	if errors.As(err, &se) && se.Msg != "" {
		msg = se.Msg
	}
	switch raftstore.CodeOf(err) {
	case raftstore.ErrCodeNotFound:
		return apierrors.NewNotFound(memberResource, name)
	case raftstore.ErrCodeAlreadyExists:
		return apierrors.NewAlreadyExists(memberResource, name)
	case raftstore.ErrCodeConflict:
		return apierrors.NewConflict(memberResource, name, fmt.Errorf("%s", msg))
	case raftstore.ErrCodeInvalid, raftstore.ErrCodeBadRequest:
		return apierrors.NewBadRequest(msg)
	}
	return apierrors.NewServiceUnavailable(msg)
}
