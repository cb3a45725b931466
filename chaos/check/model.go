package check

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/raftapi/raftapi/chaos/history"
)

// The register model. Every write sets a value no other write sets, so
// the state of a key is just its value ("" when it does not exist), and an
// update's (or patch's) resourceVersion precondition is the value that
// resourceVersion holds. A patch with a resourceVersion precondition is an
// update to the model.

// regInput is what a register operation asked for.
type regInput struct {
	Kind       history.Kind
	Value      string // create, update: the value written
	PrecondVal string // update: the value its precondition rv holds
}

// regOutput is what it got back.
type regOutput struct {
	Unknown bool
	Code    int    // 0 on success, else 404 or 409
	Found   bool   // get
	Value   string // get
	RV      int64
}

// registerModel is a per-key register with create, update and patch
// (with precondition), delete and get. A write whose outcome is unknown takes
// effect where the model can apply it; porcupine places it after every
// other operation when it never took effect, as its return is at the end
// of time.
var registerModel = modelOf(false)

// lenientModel is registerModel except that an update or patch refused
// with 404 says nothing about the key: it tells a history whose only fault is
// such refusals from one with worse.
var lenientModel = modelOf(true)

func modelOf(lenient bool) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return "" },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			in, out := input.(regInput), output.(regOutput)
			if lenient && (in.Kind == history.Update || in.Kind == history.Patch) && out.Code == 404 {
				return true, state
			}
			return step(state.(string), in, out)
		},
		DescribeOperation: func(input, output interface{}) string {
			return describe(input.(regInput), output.(regOutput))
		},
		DescribeState: func(state interface{}) string {
			if state.(string) == "" {
				return "(absent)"
			}
			return state.(string)
		},
	}
}

func step(cur string, in regInput, out regOutput) (bool, interface{}) {
	switch in.Kind {
	case history.Get:
		return cur == out.Value && (cur != "") == out.Found, cur
	case history.Create:
		return writeStep(cur, cur == "", in.Value, out, cur != "")
	case history.Update, history.Patch:
		return writeStep(cur, cur != "" && cur == in.PrecondVal, in.Value, out, cur != in.PrecondVal)
	case history.Delete:
		return writeStep(cur, cur != "", "", out, cur == "")
	}
	return false, cur
}

// writeStep: a write whose precondition holds sets next; one whose outcome
// is unknown applies when it can; a refused one (404, 409) must have been
// refused for a reason the state explains.
func writeStep(cur string, can bool, next string, out regOutput, refusedOK bool) (bool, interface{}) {
	switch {
	case out.Unknown:
		if can {
			return true, next
		}
		return true, cur
	case out.Code == 0:
		return can, next
	case out.Code == 404:
		return cur == "", cur
	default: // 409
		return refusedOK, cur
	}
}

func describe(in regInput, out regOutput) string {
	res := "ok"
	switch {
	case out.Unknown:
		res = "unknown"
	case out.Code != 0:
		res = fmt.Sprint(out.Code)
	}
	switch in.Kind {
	case history.Get:
		if !out.Found {
			return "get() -> absent"
		}
		return fmt.Sprintf("get() -> %s@%d", out.Value, out.RV)
	case history.Create:
		return fmt.Sprintf("create(%s) -> %s", in.Value, res)
	case history.Update, history.Patch:
		return fmt.Sprintf("%s(%s -> %s) -> %s", in.Kind, in.PrecondVal, in.Value, res)
	}
	return "delete() -> " + res
}
