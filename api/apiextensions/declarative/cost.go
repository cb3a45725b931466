package declarative

import (
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/overloads"

	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"
)

// costEstimator estimates the cost of an expression over self as
// kube-apiserver does for x-kubernetes-validations (sizes from the
// schema's bounds: maxItems, maxLength, maxProperties, else what fits in
// a request), and tracks its cost at run time. One bound is tighter than
// kube-apiserver's: the string of a number or a bool is short (a few
// dozen bytes), where kube-apiserver counts it unbounded, which makes
// "'x' + string(self.spec.replicas)" cost more than any limit.
type costEstimator struct {
	*library.CostEstimator
}

// scalarStringMax bounds the length of the string of a number or a bool.
const scalarStringMax = 32

// newCostEstimator returns the cost estimator of expressions over self of
// type root.
func newCostEstimator(root *apiservercel.DeclType) *costEstimator {
	return &costEstimator{&library.CostEstimator{SizeEstimator: &sizeEstimator{root: root}}}
}

// EstimateCallCost implements checker.CostEstimator.
func (e *costEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	switch overloadID {
	case overloads.IntToString, overloads.UintToString, overloads.DoubleToString, overloads.BoolToString:
		return &checker.CallEstimate{
			CostEstimate: checker.CostEstimate{Min: 1, Max: 1},
			ResultSize:   &checker.SizeEstimate{Min: 1, Max: scalarStringMax},
		}
	}
	return e.CostEstimator.EstimateCallCost(function, overloadID, target, args)
}

// sizeEstimator estimates the size of the values an expression reaches
// from self, as kube-apiserver's.
type sizeEstimator struct{ root *apiservercel.DeclType }

// EstimateSize implements checker.CostEstimator.
func (c *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	cur := c.root
	for _, name := range path[1:] { // path[0] is self
		switch name {
		case "@items", "@values":
			cur = cur.ElemType
		case "@keys":
			cur = cur.KeyType
		default:
			f, ok := cur.Fields[name]
			if !ok {
				return nil
			}
			cur = f.Type
		}
		if cur == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(cur.MaxElements)}
}

// EstimateCallCost implements checker.CostEstimator: the library's
// estimates stand.
func (c *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}
