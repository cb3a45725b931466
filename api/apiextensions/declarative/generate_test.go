package declarative

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// entropy is where a generated object's choices come from: a seeded
// random source in tests, the fuzzer's bytes in the fuzz target.
type entropy interface {
	// intn returns a number in [0, n).
	intn(n int) int
	// uint64 returns any number.
	uint64() uint64
}

// randEntropy draws from a seeded source.
type randEntropy struct{ r *rand.Rand }

func (e randEntropy) intn(n int) int { return e.r.IntN(n) }
func (e randEntropy) uint64() uint64 { return e.r.Uint64() }
func newRandEntropy(seed uint64) entropy {
	return randEntropy{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// bytesEntropy draws from the fuzzer's bytes, then zeros.
type bytesEntropy struct{ b []byte }

func (e *bytesEntropy) intn(n int) int { return int(e.next(1)[0]) % n }
func (e *bytesEntropy) uint64() uint64 { return binary.LittleEndian.Uint64(e.next(8)) }

// next consumes n bytes, zero-padded once the input runs out.
func (e *bytesEntropy) next(n int) []byte {
	out := make([]byte, n)
	k := copy(out, e.b)
	e.b = e.b[k:]
	return out
}

// generator builds random objects valid under a version's schema.
type generator struct{ e entropy }

// object returns a random object of kind in apiVersion whose spec and
// status follow s, with metadata a client could have written (user
// annotations included, none reserved).
func (g generator) object(apiVersion, kind string, s *structuralschema.Structural) map[string]any {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": g.metadata()}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if carried[name] || g.e.intn(4) == 0 {
			continue
		}
		prop := s.Properties[name]
		obj[name] = g.value(&prop, 0)
	}
	return obj
}

// metadata returns a name and, at random, labels and annotations (an
// empty map among them).
func (g generator) metadata() map[string]any {
	md := map[string]any{"name": fmt.Sprintf("o%d", g.e.intn(100)), "namespace": "ns"}
	switch g.e.intn(4) {
	case 1:
		md["annotations"] = map[string]any{}
	case 2:
		md["annotations"] = map[string]any{"team": g.text()}
	case 3:
		md["labels"] = map[string]any{"app": "x"}
	}
	return md
}

// value returns a random value of schema s.
func (g generator) value(s *structuralschema.Structural, depth int) any {
	switch {
	case s.XIntOrString:
		if g.e.intn(2) == 0 {
			return g.integer(s)
		}
		return g.text()
	case s.ValueValidation != nil && len(s.ValueValidation.Enum) > 0:
		return s.ValueValidation.Enum[g.e.intn(len(s.ValueValidation.Enum))].Object
	}
	switch s.Type {
	case "string":
		if s.ValueValidation != nil && s.ValueValidation.Format == "date-time" {
			return time.Unix(int64(g.e.intn(1<<30)), 0).UTC().Format(time.RFC3339)
		}
		return g.text()
	case "integer":
		return g.integer(s)
	case "number":
		return g.number()
	case "boolean":
		return g.e.intn(2) == 0
	case "array":
		return g.array(s, depth)
	case "object":
		return g.fields(s, depth)
	}
	return g.any(depth)
}

// array returns up to three items of s's item schema.
func (g generator) array(s *structuralschema.Structural, depth int) []any {
	out := []any{}
	for range g.e.intn(4) {
		out = append(out, g.value(s.Items, depth+1))
	}
	return out
}

// fields returns an object of s: some of its properties, or a few keys
// of a map, or unknown fields where s keeps them.
func (g generator) fields(s *structuralschema.Structural, depth int) map[string]any {
	out := map[string]any{}
	switch {
	case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
		for range g.e.intn(4) {
			out[g.text()] = g.value(s.AdditionalProperties.Structural, depth+1)
		}
	case len(s.Properties) > 0:
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if g.e.intn(3) > 0 {
				prop := s.Properties[name]
				out[name] = g.value(&prop, depth+1)
			}
		}
	case s.XPreserveUnknownFields:
		for range g.e.intn(4) {
			out[g.text()] = g.any(depth + 1)
		}
	}
	return out
}

// any returns an arbitrary JSON value, for fields that keep anything.
func (g generator) any(depth int) any {
	n := 6
	if depth > 3 {
		n = 4
	}
	switch g.e.intn(n) {
	case 0:
		return g.text()
	case 1:
		return int64(g.e.uint64())
	case 2:
		return g.e.intn(2) == 0
	case 3:
		return g.number()
	case 4:
		out := []any{}
		for range g.e.intn(3) {
			out = append(out, g.any(depth+1))
		}
		return out
	}
	out := map[string]any{}
	for range g.e.intn(3) {
		out[g.text()] = g.any(depth + 1)
	}
	return out
}

// integer returns an integer within s's bounds.
func (g generator) integer(s *structuralschema.Structural) int64 {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if v := s.ValueValidation; v != nil && v.Minimum != nil {
		lo = int64(*v.Minimum)
	}
	if v := s.ValueValidation; v != nil && v.Maximum != nil {
		hi = int64(*v.Maximum)
	}
	if g.e.intn(2) == 0 {
		lo, hi = max(lo, -10), min(hi, 10)
	}
	span := uint64(hi - lo)
	if span == math.MaxUint64 {
		return int64(g.e.uint64())
	}
	return lo + int64(g.e.uint64()%(span+1))
}

// number returns a float, integral or not.
func (g generator) number() float64 {
	f := float64(int64(g.e.uint64()%2000000)-1000000) / 64
	if g.e.intn(3) == 0 {
		return math.Trunc(f)
	}
	return f
}

// text returns a short string, at times empty or not ASCII.
func (g generator) text() string {
	const alphabet = "abcxyz-._/09 é世\"\\{}"
	runes := []rune(alphabet)
	n := g.e.intn(8)
	out := make([]rune, n)
	for i := range out {
		out[i] = runes[g.e.intn(len(runes))]
	}
	return string(out)
}
