package train

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neuralnmf/neuralnmf/beam/reduce"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*PrepareTask)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*ShareTask)(nil)).Elem())
	register.Function2x1[context.Context, PrepareTask, error](PrepareShard)
	register.DoFn3x1[context.Context, ShareTask, func(reduce.Share), error](&shareFn{})
	register.Emitter1[reduce.Share]()
	register.DoFn2x1[context.Context, reduce.Total, error](&writeTotalFn{})
}

// Beam is the Engine of Apache Beam: each stage is one pipeline, run by
// Run (beamx.Run for the runner Beam's flags name, or a runner's Execute).
// Its elements are the shards; the shares are reduced by reduce.Ordered.
type Beam struct {
	Run func(ctx context.Context, p *beam.Pipeline) error
}

// Prepare runs a pipeline of PrepareShard over tasks.
func (b Beam) Prepare(ctx context.Context, tasks []PrepareTask) error {
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.prepare")
	beam.ParDo0(s, PrepareShard, beam.CreateList(s, tasks))
	return b.Run(ctx, p)
}

// Shares runs a pipeline of ShardShares over tasks, reduce.Ordered, and
// WriteTotal.
func (b Beam) Shares(ctx context.Context, tasks []ShareTask) error {
	if len(tasks) == 0 {
		return nil
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("neuralnmf.step")
	shares := beam.ParDo(s, &shareFn{}, beam.CreateList(s, tasks))
	beam.ParDo0(s, &writeTotalFn{Work: tasks[0].Work, Step: tasks[0].Step}, reduce.Ordered(s, shares))
	return b.Run(ctx, p)
}

// shareFn runs ShardShares, keeping the A's of the step it last read.
type shareFn struct {
	aPath string
	a     []*tensor.Dense
}

func (f *shareFn) ProcessElement(ctx context.Context, t ShareTask, emit func(reduce.Share)) error {
	if p := t.aPath(); p != f.aPath {
		a, err := readDenses(ctx, p)
		if err != nil {
			return err
		}
		f.aPath, f.a = p, a
	}
	return ShardShares(ctx, t, f.a, emit)
}

// writeTotalFn writes each key's total of a step.
type writeTotalFn struct {
	Work, Step string
}

func (f *writeTotalFn) ProcessElement(ctx context.Context, t reduce.Total) error {
	return WriteTotal(ctx, f.Work, f.Step, t)
}
