package train_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/neuralnmf/neuralnmf/beam/internal/corpus"
	"github.com/neuralnmf/neuralnmf/beam/train"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// Training on four shard files in one process (train.Local); train.Beam
// runs the same stages as pipelines, with the same result.
func ExampleTrain() {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	shards, err := corpus.WriteShards(corpus.Generate(48, 4, 400, 60, 1), 4, 0, dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	work := filepath.Join(dir, "work")
	opt := train.Options{Shards: shards, Work: work, Steps: 4,
		Config: neuralnmf.Config{Ranks: []int{4, 2}, Epochs: 3, Tol: -1, Seed: 1}}
	m, err := train.Train(context.Background(), opt, train.Local{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passes:", len(m.History.Loss), "ranks:", m.A[0].Cols, m.A[1].Cols)
	fmt.Println(train.Clean(context.Background(), work))
	// Output:
	// passes: 3 ranks: 4 2
	// <nil>
}
