package semisup_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// TrainChoosing cross-validates its candidates on the known labels (a
// supervised fit on a held-out third of them) and keeps what classifies
// them best. Here six classes cannot be read from two topics,
// so the chosen classifier reads layer 1.
func ExampleTrainChoosing() {
	rng := tensor.NewRand(5)
	x := tensor.New(36, 120)
	labels, known := make([]int, 120), make([]bool, 120)
	for j := range labels {
		labels[j], known[j] = j%6, j < 30 // 30 known labels, 5 per class
		for i := 0; i < 36; i++ {
			v := 0.05 * rng.Float64()
			if i/6 == j%6 {
				v += 0.5 + rng.Float64()
			}
			x.Set(i, j, v)
		}
		if !known[j] {
			labels[j] = -1
		}
	}
	m, choice, err := semisup.TrainChoosing(x, neuralnmf.Config{Ranks: []int{6, 2}, Seed: 1,
		Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 6, Known: known}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	chosen := choice.Candidates[choice.Chosen]
	fmt.Printf("%d candidates, %d known labels, %d held out; chose %v of layer %d, scored on %d\n",
		len(choice.Candidates), choice.Known, choice.HeldOut, chosen.Kind, chosen.Layer, chosen.Scored)
	pred, _, err := m.Classify(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	truth := make([]int, 120)
	for j := range truth {
		truth[j] = j % 6
	}
	fmt.Printf("accuracy on all 120 columns %.2f\n", classify.Accuracy(pred, truth))
	// Output:
	// 9 candidates, 30 known labels, 6 held out; chose readout of layer 1, scored on 30
	// accuracy on all 120 columns 1.00
}
