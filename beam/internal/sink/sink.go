// Package sink ends Beam pipelines whose work is done by their side
// effects (files written), in a way Prism runs without spinning a core.
package sink

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Function1x2(doneKV)
	register.Function2x0(ignore)
	register.Iter1[string]()
}

// Drain ends a pipeline whose last stage emits done (a string per
// element) with a GroupByKey and an empty sink. Prism (v2.77.0) polls in
// a busy loop, one core's worth, for as long as a stage without outputs
// runs; a stage whose output goes to a GroupByKey does not, so the stage
// doing the work is given one and the sink does nothing.
func Drain(s beam.Scope, done beam.PCollection) {
	beam.ParDo0(s, ignore, beam.GroupByKey(s, beam.ParDo(s, doneKV, done)))
}

func doneKV(k string) (string, string)  { return "done", k }
func ignore(string, func(*string) bool) {}
