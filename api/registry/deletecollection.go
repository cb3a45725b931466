package registry

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/codec"
)

// DeleteCollection deletes every object of namespace ns ("" for all)
// matching the selectors of list, each as Delete would, and returns the
// objects deleted or marked for deletion. Every object is deleted with the
// same options, preconditions included, as kube-apiserver's store does; the
// first failure ends the collection.
func (s *Store) DeleteCollection(ctx context.Context, ns string, list ListOptions, opts *metav1.DeleteOptions) (*ListResult, error) {
	if err := validateDeleteOptions(opts); err != nil {
		return nil, err
	}
	objs, err := s.storage().List(ctx, s.res.Prefix(ns), StoreListOptions{
		ReadOptions: ReadOptions{Consistency: MostRecent}, Predicate: predicate(s.res, list),
	})
	if err != nil {
		return nil, storeError(err, s.res, "")
	}
	result := &ListResult{Revision: objs.Revision}
	for _, o := range objs.Items {
		obj, err := codec.DecodeStored(s.res, o.Data)
		if err != nil {
			return nil, err
		}
		m := codec.Accessor(obj)
		d, err := s.Delete(ctx, m.GetNamespace(), m.GetName(), opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		result.Items = append(result.Items, Object{Data: d.Data})
	}
	return result, nil
}
