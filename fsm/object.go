package fsm

import (
	"encoding/json"
	"errors"
	"strconv"
)

// StampResourceVersion returns obj with metadata.resourceVersion set to rev.
// obj must be a JSON object whose "metadata" (if present) is an object.
// Every other member is kept byte for byte; members come out in sorted key
// order, which encoding/json guarantees, so the result is deterministic.
func StampResourceVersion(obj []byte, rev uint64) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(obj, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errors.New("object is null")
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := top["metadata"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
	}
	meta["resourceVersion"] = json.RawMessage(strconv.Quote(strconv.FormatUint(rev, 10)))
	raw, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	top["metadata"] = raw
	return json.Marshal(top)
}

// objectUID returns metadata.uid of a stored object ("" when absent).
func objectUID(obj []byte) string {
	var o struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &o) != nil {
		return ""
	}
	return o.Metadata.UID
}
