package handlers

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// table renders stored objects as a Table with the resource's columns,
// computed from the stored form (from the served form for a resource with
// a Schema: a custom resource's columns are its version's), and row
// objects in the served form; withColumns false leaves the column
// definitions out (watch events after the first).
func (e encoder) table(items [][]byte, lm metav1.ListMeta, out negotiation.Output, withColumns bool) (*metav1.Table, error) {
	served := e.res.Schema != nil
	if served {
		var err error
		if items, err = codec.ServedItems(e.res, items); err != nil {
			return nil, err
		}
	}
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: metav1.GroupName + "/" + out.MetaVersion},
		ListMeta: lm,
		Rows:     make([]metav1.TableRow, 0, len(items)),
	}
	if withColumns {
		t.ColumnDefinitions = e.res.TableColumns()
	}
	now := e.now()
	for _, data := range items {
		m, err := codec.ContentMap(data)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		row := metav1.TableRow{Cells: e.res.TableCells(m, now)}
		switch out.Include {
		case negotiation.IncludeNone:
		case negotiation.IncludeObject:
			obj := data
			if !served {
				var err error
				if obj, err = codec.ServedData(e.res, data); err != nil {
					return nil, err
				}
			}
			row.Object = runtime.RawExtension{Raw: obj}
		default:
			pom, err := partialMetadata(data, "v1")
			if err != nil {
				return nil, err
			}
			raw, _ := json.Marshal(pom)
			row.Object = runtime.RawExtension{Raw: raw}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// partialMetadata returns the metadata-only form of a stored object.
func partialMetadata(data []byte, version string) (*metav1.PartialObjectMetadata, error) {
	var pom metav1.PartialObjectMetadata
	if err := json.Unmarshal(data, &pom); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	pom.TypeMeta = metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: metav1.GroupName + "/" + version}
	return &pom, nil
}

func partialMetadataList(items [][]byte, lm metav1.ListMeta, version string) (*metav1.PartialObjectMetadataList, error) {
	l := &metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: metav1.GroupName + "/" + version},
		ListMeta: lm,
		Items:    make([]metav1.PartialObjectMetadata, len(items)),
	}
	for i, data := range items {
		pom, err := partialMetadata(data, version)
		if err != nil {
			return nil, err
		}
		pom.TypeMeta = metav1.TypeMeta{}
		l.Items[i] = *pom
	}
	return l, nil
}
