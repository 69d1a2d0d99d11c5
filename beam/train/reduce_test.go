package train_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/metrics"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/beam/internal/corpus"
	"github.com/neuralnmf/neuralnmf/beam/train"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// TestReduceBytes measures, from the Beam engine's own metrics on
// in-process Prism, the bytes a step moves as the shards grow: one corpus
// (4,096 generated documents, 5,000 words, rank 10: a gradient of A⁽⁰⁾ of
// 400 KB) cut into 16, 64 and 256 shards, two steps a pass, one pass.
// Opt-in (NEURALNMF_BEAM_REDUCE=1; about a minute); docs/beam.md quotes
// its log.
//
//	NEURALNMF_BEAM_REDUCE=1 go test ./train -run TestReduceBytes -v
func TestReduceBytes(t *testing.T) {
	if os.Getenv("NEURALNMF_BEAM_REDUCE") == "" {
		t.Skip("set NEURALNMF_BEAM_REDUCE=1 to measure the reduce's bytes at 16, 64 and 256 shards")
	}
	t.Setenv("TMPDIR", t.TempDir())
	x := corpus.Generate(5000, 10, 4096, 80, 11)
	var reads []int64
	for _, n := range []int{16, 64, 256} {
		dir := t.TempDir()
		shards, err := corpus.WriteShards(x, n, 0, dir)
		require.NoError(t, err)
		var res []metrics.DistributionResult
		eng := train.Beam{Run: func(ctx context.Context, p *beam.Pipeline) error {
			pr, err := prism.Execute(ctx, p)
			if err == nil && pr != nil {
				res = append(res, pr.Metrics().AllMetrics().Distributions()...)
			}
			return err
		}}
		opt := train.Options{Shards: shards, Work: filepath.Join(dir, "work"), Steps: 2,
			Config: neuralnmf.Config{Ranks: []int{10, 4}, Epochs: 1, Seed: 1}}
		_, err = train.Train(context.Background(), opt, eng)
		require.NoError(t, err)
		agg := map[string]metrics.DistributionValue{}
		for _, r := range res {
			v, a := r.Result(), agg[r.Name()]
			if a.Count == 0 {
				a.Min = v.Min
			}
			a.Count, a.Sum, a.Min, a.Max = a.Count+v.Count, a.Sum+v.Sum, min(a.Min, v.Min), max(a.Max, v.Max)
			agg[r.Name()] = a
		}
		sh, rd, up := agg["share_bytes_written"], agg["reduce_bytes_read"], agg["update_bytes_read"]
		// Three steps ran the reduce: the pass's two and the final evaluation.
		t.Logf("%3d shards: per step, shards wrote %s in all (%s each); the reduce's %.0f elements read at most %s each (%s in all); the update read %s",
			n, mb(sh.Sum/3), mb(sh.Max), float64(rd.Count)/3, mb(rd.Max), mb(rd.Sum/3), mb(up.Max))
		require.Equal(t, int64(2), up.Count, "one update a step")
		require.Equal(t, int64(3*n), sh.Count, "one share a shard a step")
		reads = append(reads, rd.Max)
	}
	require.LessOrEqual(t, reads[2], 2*reads[0], "the most one reduce element reads does not grow with the shards")
}

func mb(b int64) string { return fmt.Sprintf("%.2f MB", float64(b)/1e6) }
