package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// line is one JSON line of a written history: exactly one field is set.
type line struct {
	Run    *History    `json:"run,omitempty"`
	Op     *Op         `json:"op,omitempty"`
	Event  *WatchEvent `json:"event,omitempty"`
	Fault  *Fault      `json:"fault,omitempty"`
	Sample *Sample     `json:"sample,omitempty"`
	Tried  string      `json:"attempted,omitempty"`
}

// Write writes h as JSON lines: the run header, then operations, watch
// events, faults, samples and attempted values.
func Write(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	lines := []line{{Run: h}}
	for i := range h.Ops {
		lines = append(lines, line{Op: &h.Ops[i]})
	}
	for i := range h.Events {
		lines = append(lines, line{Event: &h.Events[i]})
	}
	for i := range h.Faults {
		lines = append(lines, line{Fault: &h.Faults[i]})
	}
	for i := range h.Samples {
		lines = append(lines, line{Sample: &h.Samples[i]})
	}
	for v := range h.Attempted {
		lines = append(lines, line{Tried: v})
	}
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return fmt.Errorf("history: write: %w", err)
		}
	}
	return bw.Flush()
}

// Read reads a history written by Write.
func Read(r io.Reader) (*History, error) {
	h := &History{Attempted: map[string]bool{}}
	dec := json.NewDecoder(r)
	for n := 1; ; n++ {
		var l line
		err := dec.Decode(&l)
		if err == io.EOF {
			return h, nil
		}
		if err != nil {
			return nil, fmt.Errorf("history: read line %d: %w", n, err)
		}
		h.add(l)
	}
}

func (h *History) add(l line) {
	switch {
	case l.Run != nil:
		h.Namespace, h.Nodes, h.End = l.Run.Namespace, l.Run.Nodes, l.Run.End
	case l.Op != nil:
		h.Ops = append(h.Ops, *l.Op)
	case l.Event != nil:
		h.Events = append(h.Events, *l.Event)
	case l.Fault != nil:
		h.Faults = append(h.Faults, *l.Fault)
	case l.Sample != nil:
		h.Samples = append(h.Samples, *l.Sample)
	case l.Tried != "":
		h.Attempted[l.Tried] = true
	}
}
