package garbagecollector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// decodeMetadata decodes the "metadata" member of the stored object data
// into m, reading data only up to the end of that member. A pass decodes
// every stored object, and metadata comes before the object's body in
// every stored form (typed objects encode their fields in declaration
// order, unstructured ones in key order: "apiVersion", "kind",
// "metadata" sort before "spec", "status" and most other fields), so the
// values after it (a ConfigMap's data, a custom resource's spec) are
// never scanned. The members before it are skipped as raw values.
//
// The rest of data is not validated; stored objects were validated when
// written. Should "metadata" appear twice, the first counts (a whole
// decode would merge both); the stored forms never repeat a member.
func decodeMetadata(data []byte, m *gcMeta) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if key == "metadata" {
			return dec.Decode(m)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
	}
	return nil // no metadata: the zero gcMeta, as a whole decode leaves it
}
