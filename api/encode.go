package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/raftstore"
)

// writeObject writes one stored object in the negotiated representation.
func (h *handler) writeObject(w http.ResponseWriter, out output, code int, data []byte) {
	body, err := h.encodeObject(out, data)
	if err != nil {
		writeStatus(w, err)
		return
	}
	h.writeBody(w, out, code, body)
}

// encodeObject returns the body of a response holding one object.
func (h *handler) encodeObject(out output, data []byte) ([]byte, error) {
	switch out.view {
	case viewTable:
		t, err := h.table([][]byte{data}, metav1.ListMeta{}, out, true)
		if err != nil {
			return nil, err
		}
		return h.marshal(out, t)
	case viewMetadata:
		pom, err := partialMetadata(data, out.metaVersion)
		if err != nil {
			return nil, err
		}
		return h.marshal(out, pom)
	}
	if out.enc == encProtobuf {
		obj, err := decodeStored(h.res, data)
		if err != nil {
			return nil, err
		}
		return h.protobuf(obj)
	}
	served, err := servedData(h.res, data)
	if err != nil {
		return nil, err
	}
	if out.enc == encYAML {
		return yaml.JSONToYAML(served)
	}
	return served, nil
}

// writeList writes a list result in the negotiated representation.
func (h *handler) writeList(w http.ResponseWriter, out output, res *raftstore.ListResult) {
	body, err := h.encodeList(out, res)
	if err != nil {
		writeStatus(w, err)
		return
	}
	h.writeBody(w, out, http.StatusOK, body)
}

func listMeta(res *raftstore.ListResult) metav1.ListMeta {
	return metav1.ListMeta{
		ResourceVersion:    strconv.FormatUint(res.Revision, 10),
		Continue:           res.Continue,
		RemainingItemCount: res.RemainingItemCount,
	}
}

func itemsOf(res *raftstore.ListResult) [][]byte {
	items := make([][]byte, len(res.Items))
	for i, o := range res.Items {
		items[i] = o.Data
	}
	return items
}

func (h *handler) encodeList(out output, res *raftstore.ListResult) ([]byte, error) {
	lm := listMeta(res)
	switch out.view {
	case viewTable:
		t, err := h.table(itemsOf(res), lm, out, true)
		if err != nil {
			return nil, err
		}
		return h.marshal(out, t)
	case viewMetadata:
		l, err := partialMetadataList(itemsOf(res), lm, out.metaVersion)
		if err != nil {
			return nil, err
		}
		return h.marshal(out, l)
	}
	if out.enc == encProtobuf {
		l, err := h.typedList(res, lm)
		if err != nil {
			return nil, err
		}
		return h.protobuf(l)
	}
	items, err := h.rawItems(res)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(&rawList{
		Kind: h.res.ListKind, APIVersion: h.res.APIVersion(), Metadata: lm, Items: items,
	})
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.enc == encYAML {
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
func (h *handler) rawItems(res *raftstore.ListResult) ([]json.RawMessage, error) {
	items := make([]json.RawMessage, len(res.Items))
	for i, o := range res.Items {
		data, err := servedData(h.res, o.Data)
		if err != nil {
			return nil, err
		}
		items[i] = data
	}
	return items, nil
}

// typedList builds the Go list type of the resource from a list result.
func (h *handler) typedList(res *raftstore.ListResult, lm metav1.ListMeta) (runtime.Object, error) {
	l := h.res.NewList()
	objs := make([]runtime.Object, len(res.Items))
	for i, o := range res.Items {
		obj, err := decodeStored(h.res, o.Data)
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
	l.GetObjectKind().SetGroupVersionKind(h.res.GroupVersion().WithKind(h.res.ListKind))
	return l, nil
}

// protobuf encodes a typed object with the Protobuf envelope.
func (h *handler) protobuf(obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := h.server.codecs.proto.Encode(obj, &buf); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return buf.Bytes(), nil
}

// marshal encodes a meta.k8s.io object (Table, PartialObjectMetadata) as
// JSON or YAML.
func (h *handler) marshal(out output, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.enc == encYAML {
		return yaml.JSONToYAML(body)
	}
	return body, nil
}

func (h *handler) writeBody(w http.ResponseWriter, out output, code int, body []byte) {
	w.Header().Set("Content-Type", out.contentType())
	writeMaybeCompressed(w, out.gzip, code, body)
}
