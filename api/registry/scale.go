package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/resource"
)

// A scale subresource (resource.Subresource.Scale) is a view of its
// object as an autoscaling/v1 Scale, as kube-apiserver serves a custom
// resource's /scale: Get returns the Scale, Update and Patch take one and
// write its spec.replicas into the object through the main resource's
// update path (so the object's validation, managedFields and generation
// apply), and answer the Scale of the result.

// isScale reports whether s serves a scale subresource.
func (s *Store) isScale() bool { return s.sub != nil && s.sub.Scale != nil }

// getScale is Get for a scale subresource.
func (s *Store) getScale(ctx context.Context, ns, name string, opts GetOptions) (Object, error) {
	cur, err := s.storage().Get(ctx, s.res.Key(ns, name), getReadOptions(opts.ResourceVersion))
	if err != nil {
		return Object{}, storeError(err, s.res, name)
	}
	data, err := s.scaleData(cur.Data)
	if err != nil {
		return Object{}, err
	}
	cur.Data = data
	return cur, nil
}

// scaleData returns the Scale JSON of a stored object.
func (s *Store) scaleData(stored []byte) ([]byte, error) {
	scale, err := s.scaleOf(stored)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(scale)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return b, nil
}

// scaleOf computes the Scale of a stored object; absent replicas are 0.
func (s *Store) scaleOf(stored []byte) (*autoscalingv1.Scale, error) {
	obj, err := codec.DecodeStored(s.res, stored)
	if err != nil {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("scale of %T", obj))
	}
	paths := s.sub.Scale
	spec, _, err := unstructured.NestedInt64(u.Object, splitJSONPath(paths.SpecReplicasPath)...)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	status, _, err := unstructured.NestedInt64(u.Object, splitJSONPath(paths.StatusReplicasPath)...)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var selector string
	if paths.LabelSelectorPath != "" {
		if selector, _, err = unstructured.NestedString(u.Object, splitJSONPath(paths.LabelSelectorPath)...); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(spec)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(status), Selector: selector},
	}, nil
}

// updateScale is Update for a scale subresource: a resourceVersion in
// the Scale is a precondition, as for any update.
func (s *Store) updateScale(ctx context.Context, ns, name string, scale *autoscalingv1.Scale, wp *writeParams) ([]byte, error) {
	if scale.Name != name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", scale.Name, name))
	}
	want, err := parseRV(scale.ResourceVersion)
	if err != nil {
		return nil, err
	}
	return s.updateLoop(ctx, s.res.Key(ns, name), name, want, wp, func(cur Object) ([]byte, error) {
		return s.writeReplicas(ctx, cur, scale.Spec.Replicas, wp)
	})
}

// patchScale is Patch for a scale subresource: the patch applies to the
// current Scale, retried on a concurrent change.
func (s *Store) patchScale(ctx context.Context, ns, name string, pt types.PatchType, patch []byte, wp *writeParams) ([]byte, error) {
	scaleRes := resource.ScaleResource(s.res)
	for {
		cur, err := s.storage().Get(ctx, s.res.Key(ns, name), ReadOptions{Consistency: MostRecent})
		if err != nil {
			return nil, storeError(err, s.res, name)
		}
		original, err := s.scaleData(cur.Data)
		if err != nil {
			return nil, err
		}
		patched, err := applyPatch(scaleRes, pt, original, patch)
		if err != nil {
			return nil, err
		}
		obj, _, err := s.reg.Codecs().Decode(scaleRes, codec.MediaJSON, patched, wp.FieldValidation)
		if err != nil {
			return nil, codec.PatchedError(patched, err)
		}
		if err := checkPatched(s.res, obj, ns, name, cur.Rev); err != nil {
			return nil, err
		}
		data, err := s.writeReplicas(ctx, cur, obj.(*autoscalingv1.Scale).Spec.Replicas, wp)
		if IsConflict(err) {
			continue
		}
		if err != nil {
			return nil, storeError(err, s.res, name)
		}
		return data, nil
	}
}

// writeReplicas sets the desired replicas of cur through the main
// resource and returns the Scale of the result.
func (s *Store) writeReplicas(ctx context.Context, cur Object, replicas int32, wp *writeParams) ([]byte, error) {
	obj, err := codec.DecodeStored(s.res, cur.Data)
	if err != nil {
		return nil, err
	}
	u := obj.(*unstructured.Unstructured)
	if err := unstructured.SetNestedField(u.Object, int64(replicas), splitJSONPath(s.sub.Scale.SpecReplicasPath)...); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	data, err := s.reg.Store(s.res).commitUpdate(ctx, cur, u, wp)
	if err != nil {
		return nil, err
	}
	return s.scaleData(data)
}

// splitJSONPath splits a simple JSON path (".spec.replicas") into its
// fields.
func splitJSONPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}
