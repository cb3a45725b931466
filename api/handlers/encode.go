package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
	"github.com/raftapi/raftapi/api/registry"
	"github.com/raftapi/raftapi/api/resource"
)

// writeObject writes one stored object in the negotiated representation.
func (e encoder) writeObject(w http.ResponseWriter, out negotiation.Output, code int, data []byte) {
	body, err := e.encodeObject(out, data)
	if err != nil {
		WriteStatus(w, err)
		return
	}
	e.writeBody(w, out, code, body)
}

// encodeObject returns the body of a response holding one object.
func (e encoder) encodeObject(out negotiation.Output, data []byte) ([]byte, error) {
	switch out.View {
	case negotiation.ViewTable:
		t, err := e.objectTable(data, out)
		if err != nil {
			return nil, err
		}
		return e.marshal(out, t)
	case negotiation.ViewMetadata:
		pom, err := partialMetadata(data, out.MetaVersion)
		if err != nil {
			return nil, err
		}
		return e.marshal(out, pom)
	}
	if out.Enc == negotiation.Protobuf {
		obj, err := codec.DecodeStored(e.res, data)
		if err != nil {
			return nil, err
		}
		return e.codecs.Protobuf(obj)
	}
	served, err := codec.ServedData(e.res, data)
	if err != nil {
		return nil, err
	}
	if out.Enc == negotiation.YAML {
		return yaml.JSONToYAML(served)
	}
	return served, nil
}

// writeList writes a list result in the negotiated representation.
func (e encoder) writeList(w http.ResponseWriter, out negotiation.Output, res *registry.ListResult) {
	if out.View == negotiation.ViewObject && out.Enc == negotiation.JSON {
		l, err := e.listJSON(res)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		w.Header().Set("Content-Type", out.ContentType())
		writeListJSON(w, out.Gzip, l)
		return
	}
	body, err := e.encodeList(out, res)
	if err != nil {
		WriteStatus(w, err)
		return
	}
	e.writeBody(w, out, http.StatusOK, body)
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

func (e encoder) encodeList(out negotiation.Output, res *registry.ListResult) ([]byte, error) {
	lm := listMeta(res)
	switch out.View {
	case negotiation.ViewTable:
		t, err := e.table(itemsOf(res), lm, out, true)
		if err != nil {
			return nil, err
		}
		return e.marshal(out, t)
	case negotiation.ViewMetadata:
		l, err := partialMetadataList(itemsOf(res), lm, out.MetaVersion)
		if err != nil {
			return nil, err
		}
		return e.marshal(out, l)
	}
	if out.Enc == negotiation.Protobuf {
		l, err := e.typedList(res, lm)
		if err != nil {
			return nil, err
		}
		return e.codecs.Protobuf(l)
	}
	l, err := e.listJSON(res)
	if err != nil {
		return nil, err
	}
	body := l.bytes()
	if out.Enc == negotiation.YAML {
		return yaml.JSONToYAML(body)
	}
	return body, nil
}

// listJSON returns the JSON list of the result's objects in the served
// version.
func (e encoder) listJSON(res *registry.ListResult) (listJSON, error) {
	items, err := codec.ServedItems(e.res, itemsOf(res))
	if err != nil {
		return listJSON{}, err
	}
	l, err := newListJSON(e.res.ListKind, e.res.APIVersion(), listMeta(res), items)
	if err != nil {
		return listJSON{}, apierrors.NewInternalError(err)
	}
	return l, nil
}

// typedList builds the Go list type of the resource from a list result.
func (e encoder) typedList(res *registry.ListResult, lm metav1.ListMeta) (runtime.Object, error) {
	l := e.res.NewList()
	objs := make([]runtime.Object, len(res.Items))
	for i, o := range res.Items {
		obj, err := codec.DecodeStored(e.res, o.Data)
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
	l.GetObjectKind().SetGroupVersionKind(e.res.GroupVersion().WithKind(e.res.ListKind))
	return l, nil
}

// marshal encodes a meta.k8s.io object (Table, PartialObjectMetadata) as
// JSON or YAML.
func (e encoder) marshal(out negotiation.Output, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.Enc == negotiation.YAML {
		return yaml.JSONToYAML(body)
	}
	return body, nil
}

func (e encoder) writeBody(w http.ResponseWriter, out negotiation.Output, code int, body []byte) {
	w.Header().Set("Content-Type", out.ContentType())
	writeMaybeCompressed(w, out.Gzip, code, body)
}

// objectTable is the Table of one object: its resourceVersion is the
// object's, as kube-apiserver's table convertor sets it.
func (e encoder) objectTable(data []byte, out negotiation.Output) (*metav1.Table, error) {
	pom, err := partialMetadata(data, "v1")
	if err != nil {
		return nil, err
	}
	return e.table([][]byte{data}, metav1.ListMeta{ResourceVersion: pom.ResourceVersion}, out, true)
}

// encoder writes the stored objects of one resource in a negotiated
// representation.
type encoder struct {
	res    *resource.Resource
	codecs *codec.Codecs
	// now is the clock of Table ages.
	now func() time.Time
}

// encoder returns the encoder of the scope's resource.
func (s *Scope) encoder() encoder { return encoder{res: s.Resource, codecs: s.Codecs, now: s.Now} }
