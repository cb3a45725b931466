package apiextensions

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/raftapi/raftapi/api/apiextensions/convwebhook"
	"github.com/raftapi/raftapi/api/apiextensions/declarative"
)

// ConversionPolicy is raftapi.io/v1 ConversionPolicy (package declarative).
type ConversionPolicy = declarative.ConversionPolicy

// newConverter returns the converter of crd's objects: policy's (the
// ConversionPolicy named as crd, nil when there is none), else the
// webhook of spec.conversion, else None.
//
// A policy or webhook that cannot be used (a policy the CRD has outgrown
// since it was accepted, a caBundle that does not parse) still gives a
// converter: one that fails every conversion with the reason, so that
// objects are served in the version they are stored in and every
// conversion answers 500, as kube-apiserver answers when it cannot build a
// CRD's converter, rather than the whole CRD disappearing.
func newConverter(crd *apiextensionsv1.CustomResourceDefinition, policy *ConversionPolicy) (Converter, error) {
	var conv Converter
	var err error
	switch {
	case policy != nil:
		conv, err = declarative.New(crd, policy)
	case crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter:
		conv, err = convwebhook.New(crd)
	default:
		conv = noneConverter{group: crd.Spec.Group}
	}
	if err != nil {
		return failingConverter{fmt.Errorf("error resolving resource: conversion of %s: %w", crd.Name, err)}, nil
	}
	return conv, nil
}

// failingConverter answers every conversion with err.
type failingConverter struct{ err error }

// Convert implements Converter.
func (c failingConverter) Convert([]map[string]any, string) ([]map[string]any, error) {
	return nil, apierrors.NewInternalError(c.err)
}
