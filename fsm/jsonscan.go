package fsm

import (
	"bytes"
	"encoding/json"
	"errors"
)

// This file scans the members of a JSON object that json.Valid accepted,
// without decoding their values: enough for StampResourceVersion to find
// metadata.resourceVersion in a stored object. Every function assumes
// valid JSON; fed anything else it returns wrong offsets but never panics
// or loops (each step advances or stops at the end of the input).

// member is one member of a scanned object: the offsets of its key (with
// quotes) and of its value, end exclusive.
type member struct {
	key, keyEnd, value, end int
}

// object is a scanned JSON object: the offset of its '{' and its members
// in order.
type object struct {
	open    int
	members []member
	data    []byte
	// buf holds the members of an object of up to eight, as an API
	// object's top level and metadata usually are, in the object's own
	// allocation.
	buf [8]member
}

// last returns the last member whose unescaped key is name.
func (o *object) last(name string) (member, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		m := o.members[i]
		if keyEquals(o.data[m.key:m.keyEnd], name) {
			return m, true
		}
	}
	return member{}, false
}

// comma is what must follow a member inserted first: "," unless the object
// is empty.
func (o *object) comma() string {
	if len(o.members) == 0 {
		return ""
	}
	return ","
}

// keyEquals reports whether the quoted JSON string raw decodes to name.
func keyEquals(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return len(raw) == len(name)+2 && string(raw[1:len(raw)-1]) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// scanObject scans the object that starts at data[i].
func scanObject(data []byte, i int) (*object, error) {
	if i >= len(data) || data[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &object{open: i, data: data}
	o.members = o.buf[:0]
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] != '}' {
		var m member
		m.key = i
		m.keyEnd = skipString(data, i)
		i = skipSpace(data, m.keyEnd)
		i = skipSpace(data, i+1) // the ':'
		m.value = i
		m.end = skipValue(data, i)
		o.members = append(o.members, m)
		i = skipSpace(data, m.end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return o, nil
}

// skipSpace returns the offset of the first non-blank byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset just past the string that starts at
// data[i] (its opening quote). It jumps from quote to quote
// (bytes.IndexByte): a quote ends the string when an even number of
// backslashes stands right before it, each pair an escaped backslash, as
// in any valid string. The objects the API stores hold long strings (a
// ConfigMap's values), which this crosses at memory speed.
func skipString(data []byte, i int) int {
	start := i + 1
	for j := start; j < len(data); j++ {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			break
		}
		j += q
		backslashes := 0
		for k := j - 1; k >= start && data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
	}
	return len(data)
}

// skipValue returns the offset just past the value that starts at data[i].
func skipValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			i = skipString(data, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the enclosing object or array
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
