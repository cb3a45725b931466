package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
	"github.com/raftapi/raftapi/api/registry"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// writeObject writes one stored object in the negotiated representation.
func (s *Scope) writeObject(w http.ResponseWriter, out negotiation.Output, code int, data []byte) {
	body, err := s.encodeObject(out, data)
	if err != nil {
		WriteStatus(w, err)
		return
	}
	s.writeBody(w, out, code, body)
}

// encodeObject returns the body of a response holding one object.
func (s *Scope) encodeObject(out negotiation.Output, data []byte) ([]byte, error) {
	switch out.View {
	case negotiation.ViewTable:
		t, err := s.objectTable(data, out)
		if err != nil {
			return nil, err
		}
		return s.marshal(out, t)
	case negotiation.ViewMetadata:
		pom, err := partialMetadata(data, out.MetaVersion)
		if err != nil {
			return nil, err
		}
		return s.marshal(out, pom)
	}
	if out.Enc == negotiation.Protobuf {
		obj, err := codec.DecodeStored(s.Resource, data)
		if err != nil {
			return nil, err
		}
		return s.protobuf(obj)
	}
	served, err := codec.ServedData(s.Resource, data)
	if err != nil {
		return nil, err
	}
	if out.Enc == negotiation.YAML {
		return yaml.JSONToYAML(served)
	}
	return served, nil
}

// writeList writes a list result in the negotiated representation.
func (s *Scope) writeList(w http.ResponseWriter, out negotiation.Output, res *registry.ListResult) {
	body, err := s.encodeList(out, res)
	if err != nil {
		WriteStatus(w, err)
		return
	}
	s.writeBody(w, out, http.StatusOK, body)
}

func listMeta(res *registry.ListResult) metav1.ListMeta {
	return metav1.ListMeta{
		ResourceVersion:    strconv.FormatUint(res.Revision, 10),
		Continue:           res.Continue,
		RemainingItemCount: res.RemainingItemCount,
	}
}

func itemsOf(res *registry.ListResult) [][]byte {
	items := make([][]byte, len(res.Items))
	for i, o := range res.Items {
		items[i] = o.Data
	}
	return items
}

func (s *Scope) encodeList(out negotiation.Output, res *registry.ListResult) ([]byte, error) {
	lm := listMeta(res)
	switch out.View {
	case negotiation.ViewTable:
		t, err := s.table(itemsOf(res), lm, out, true)
		if err != nil {
			return nil, err
		}
		return s.marshal(out, t)
	case negotiation.ViewMetadata:
		l, err := partialMetadataList(itemsOf(res), lm, out.MetaVersion)
		if err != nil {
			return nil, err
		}
		return s.marshal(out, l)
	}
	if out.Enc == negotiation.Protobuf {
		l, err := s.typedList(res, lm)
		if err != nil {
			return nil, err
		}
		return s.protobuf(l)
	}
	items, err := s.rawItems(res)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(&rawList{
		Kind: s.Resource.ListKind, APIVersion: s.Resource.APIVersion(), Metadata: lm, Items: items,
	})
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.Enc == negotiation.YAML {
		return yaml.JSONToYAML(body)
	}
	return body, nil
}

// rawList is the JSON form of a XxxList with items as stored.
type rawList struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   metav1.ListMeta   `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

// rawItems returns the JSON of the listed objects in the served version.
func (s *Scope) rawItems(res *registry.ListResult) ([]json.RawMessage, error) {
	items := make([]json.RawMessage, len(res.Items))
	for i, o := range res.Items {
		data, err := codec.ServedData(s.Resource, o.Data)
		if err != nil {
			return nil, err
		}
		items[i] = data
	}
	return items, nil
}

// typedList builds the Go list type of the resource from a list result.
func (s *Scope) typedList(res *registry.ListResult, lm metav1.ListMeta) (runtime.Object, error) {
	l := s.Resource.NewList()
	objs := make([]runtime.Object, len(res.Items))
	for i, o := range res.Items {
		obj, err := codec.DecodeStored(s.Resource, o.Data)
		if err != nil {
			return nil, err
		}
		objs[i] = obj
	}
	if err := meta.SetList(l, objs); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	la, err := meta.ListAccessor(l)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	la.SetResourceVersion(lm.ResourceVersion)
	la.SetContinue(lm.Continue)
	la.SetRemainingItemCount(lm.RemainingItemCount)
	l.GetObjectKind().SetGroupVersionKind(s.Resource.GroupVersion().WithKind(s.Resource.ListKind))
	return l, nil
}

// protobuf encodes a typed object with the Protobuf envelope.
func (s *Scope) protobuf(obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := s.Codecs.Proto.Encode(obj, &buf); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return buf.Bytes(), nil
}

// marshal encodes a meta.k8s.io object (Table, PartialObjectMetadata) as
// JSON or YAML.
func (s *Scope) marshal(out negotiation.Output, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.Enc == negotiation.YAML {
		return yaml.JSONToYAML(body)
	}
	return body, nil
}

func (s *Scope) writeBody(w http.ResponseWriter, out negotiation.Output, code int, body []byte) {
	w.Header().Set("Content-Type", out.ContentType())
	writeMaybeCompressed(w, out.Gzip, code, body)
}

// objectTable is the Table of one object: its resourceVersion is the
// object's, as kube-apiserver's table convertor sets it.
func (s *Scope) objectTable(data []byte, out negotiation.Output) (*metav1.Table, error) {
	pom, err := partialMetadata(data, "v1")
	if err != nil {
		return nil, err
	}
	return s.table([][]byte{data}, metav1.ListMeta{ResourceVersion: pom.ResourceVersion}, out, true)
}
