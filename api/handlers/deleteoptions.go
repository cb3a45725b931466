package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/raftapi/raftapi/api/codec"
	"github.com/raftapi/raftapi/api/handlers/negotiation"
)

// deleteOptions reads DeleteOptions from the body (JSON, YAML or Protobuf)
// and the query (gracePeriodSeconds, orphanDependents, propagationPolicy,
// dryRun). The registry validates them.
func (s *Scope) deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := s.decodeDeleteOptions(r, body, opts); err != nil {
			return nil, err
		}
	}
	if err := deleteOptionsFromQuery(r, opts); err != nil {
		return nil, err
	}
	return opts, nil
}

func (s *Scope) decodeDeleteOptions(r *http.Request, body []byte, opts *metav1.DeleteOptions) error {
	mt, err := negotiation.RequestMediaType(r)
	if err != nil {
		return err
	}
	switch mt {
	case codec.MediaJSON:
		err = json.Unmarshal(body, opts)
	case codec.MediaYAML:
		err = yaml.Unmarshal(body, opts)
	case codec.MediaProtobuf:
		_, _, err = s.Codecs.Proto.Decode(body, nil, opts)
	default:
		return codec.UnsupportedMediaType(mt, codec.BodyMediaTypes)
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
