package declarative

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	celschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// selfEnv is the CEL environment of the expressions computed from the
// objects of one version: self is the whole object, typed by the
// version's schema as kube-apiserver types self in the
// x-kubernetes-validations rules at a resource's root.
type selfEnv struct {
	envs      *environment.EnvSet
	estimator *costEstimator
	// schema is the version's schema with apiVersion, kind and
	// metadata.name and generateName, as self is read at run time.
	schema *structuralschema.Structural
}

// selfTypes numbers the type names of self, which kube-apiserver keeps
// out of reach of expressions by making them unique.
var selfTypes atomic.Uint64

// newSelfEnv returns the environment of expressions over objects of the
// version whose schema is s.
func newSelfEnv(s *structuralschema.Structural) (*selfEnv, error) {
	decl := model.SchemaDeclType(s, true)
	if decl == nil {
		return nil, fmt.Errorf("the schema cannot be typed for CEL")
	}
	decl = decl.MaybeAssignTypeName(fmt.Sprintf("conversionSelf%d", selfTypes.Add(1)))
	envs, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []cel.EnvOption{cel.Variable(celschema.ScopedVarName, decl.CelType())},
		DeclTypes:         []*apiservercel.DeclType{decl},
	})
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	return &selfEnv{envs: envs, estimator: newCostEstimator(decl), schema: model.WithTypeAndObjectMeta(s)}, nil
}

// expression is a compiled computed field, safe for concurrent use.
type expression struct {
	prog cel.Program
	self *structuralschema.Structural
}

// compile compiles expr, whose result is the value of a field of schema
// target, checking its type where the checker knows it and its estimated
// cost against kube-apiserver's limit per expression. stored selects the
// environment of expressions already accepted (New) over that of
// expressions being written (Validate), as kube-apiserver does.
func (e *selfEnv) compile(expr string, target *structuralschema.Structural, stored bool) (*expression, error) {
	env := e.envs.NewExpressionsEnv()
	if stored {
		env = e.envs.StoredExpressionsEnv()
	}
	ast, issues := env.Compile(expr)
	if issues != nil {
		return nil, fmt.Errorf("compilation failed: %s", issues.String())
	}
	if !resultFits(ast.OutputType(), target) {
		return nil, fmt.Errorf("evaluates to %s, which the field (%s) cannot hold", ast.OutputType(), schemaType(target))
	}
	est, err := env.EstimateCost(ast, e.estimator)
	if err != nil {
		return nil, fmt.Errorf("cost estimation failed: %w", err)
	}
	if est.Max > validation.StaticEstimatedCostLimit {
		return nil, fmt.Errorf("estimated cost %d exceeds the limit of %d per expression (try simplifying it, or adding maxItems, maxProperties and maxLength to the schema)", est.Max, validation.StaticEstimatedCostLimit)
	}
	prog, err := env.Program(ast, cel.CostLimit(celconfig.PerCallLimit), cel.CostTracking(e.estimator),
		cel.InterruptCheckFrequency(celconfig.CheckFrequency))
	if err != nil {
		return nil, fmt.Errorf("program instantiation failed: %w", err)
	}
	return &expression{prog: prog, self: e.schema}, nil
}

// eval computes the field from obj, the object in the expression's
// version. ok is false when the field stays unset: a null result, or a
// field of obj the expression reads that obj lacks.
func (x *expression) eval(obj map[string]any) (v any, ok bool, err error) {
	out, _, err := x.prog.Eval(map[string]any{celschema.ScopedVarName: celschema.UnstructuredToVal(obj, x.self)})
	if err != nil {
		if strings.HasPrefix(err.Error(), "no such key") {
			return nil, false, nil
		}
		return nil, false, err
	}
	if out == types.NullValue {
		return nil, false, nil
	}
	v, err = jsonValue(out)
	return v, err == nil, err
}
