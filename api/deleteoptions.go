package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

var deleteOptionsKind = schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}

// deleteOptions reads DeleteOptions from the body (JSON, YAML or Protobuf)
// and the query (gracePeriodSeconds, orphanDependents, propagationPolicy,
// dryRun), and validates them as kube-apiserver does.
func (h *handler) deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := h.decodeDeleteOptions(r, body, opts); err != nil {
			return nil, err
		}
	}
	if err := deleteOptionsFromQuery(r, opts); err != nil {
		return nil, err
	}
	return opts, validateDeleteOptions(opts)
}

func (h *handler) decodeDeleteOptions(r *http.Request, body []byte, opts *metav1.DeleteOptions) error {
	mt, err := requestMediaType(r)
	if err != nil {
		return err
	}
	switch mt {
	case mediaJSON:
		err = json.Unmarshal(body, opts)
	case mediaYAML:
		err = yaml.Unmarshal(body, opts)
	case mediaProtobuf:
		_, _, err = h.server.codecs.proto.Decode(body, nil, opts)
	default:
		return unsupportedMediaType(mt, bodyMediaTypes)
	}
	if err != nil {
		return apierrors.NewBadRequest("invalid DeleteOptions: " + err.Error())
	}
	return nil
}

func deleteOptionsFromQuery(r *http.Request, opts *metav1.DeleteOptions) error {
	v := r.URL.Query()
	if s := v.Get("gracePeriodSeconds"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return apierrors.NewBadRequest("invalid gracePeriodSeconds: " + s)
		}
		opts.GracePeriodSeconds = &n
	}
	if s := v.Get("orphanDependents"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return apierrors.NewBadRequest("invalid orphanDependents: " + s)
		}
		//lint:ignore SA1019 the deprecated field is still part of the API
		opts.OrphanDependents = &b
	}
	if s := v.Get("propagationPolicy"); s != "" {
		p := metav1.DeletionPropagation(s)
		opts.PropagationPolicy = &p
	}
	opts.DryRun = append(opts.DryRun, v["dryRun"]...)
	return nil
}

func validateDeleteOptions(opts *metav1.DeleteOptions) error {
	for _, d := range opts.DryRun {
		if d != metav1.DryRunAll {
			return apierrors.NewBadRequest("unsupported dryRun value " + strconv.Quote(d) + `: only "All" is supported`)
		}
	}
	var errs field.ErrorList
	//lint:ignore SA1019 the deprecated field is still part of the API
	if opts.OrphanDependents != nil && opts.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(field.NewPath("propagationPolicy"), opts.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationOrphan, metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("propagationPolicy"), *p,
				[]string{string(metav1.DeletePropagationForeground), string(metav1.DeletePropagationBackground), string(metav1.DeletePropagationOrphan), "nil"}))
		}
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(field.NewPath("gracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(deleteOptionsKind, "", errs)
	}
	return nil
}
