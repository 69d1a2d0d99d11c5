package semisup

import (
	"math"
	"slices"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// choose sets the Choice's Best, Chosen, Prior, Margin and StdErr from
// its Candidates, of which the first nSup are supervised (scored on fold
// 0 alone) and the rest cross-validated on every fold; rights[c][i] says
// whether candidate c got the known label i right (−1: not scored).
//
// The best cross-validated candidate is the one of highest Accuracy (ties
// to the earlier). A supervised candidate is best instead when its
// held-out accuracy is at least that one's on the same held-out labels
// (ties to the supervised, the earlier in the list). With a prior kind,
// the prior's candidate is chosen unless Best gets more labels right,
// among those scored for both, by more than two standard errors of the
// paired difference.
func (ch *Choice) choose(nSup int, rights [][]int8, prior Kind, fold []int) {
	cs := ch.Candidates
	ch.Best = nSup
	for i := nSup; i < len(cs); i++ {
		if cs[i].Accuracy > cs[ch.Best].Accuracy {
			ch.Best = i
		}
	}
	if ch.Best == len(cs) { // no cross-validated candidate
		ch.Best = 0
	}
	for i := range nSup {
		if ch.Best >= nSup && cs[i].HeldOutAccuracy >= cs[ch.Best].HeldOutAccuracy ||
			ch.Best < nSup && cs[i].HeldOutAccuracy > cs[ch.Best].HeldOutAccuracy {
			ch.Best = i
		}
	}
	bestCV := ch.Best
	if ch.Best < nSup {
		bestCV = -1
		for i := nSup; i < len(cs); i++ {
			if bestCV < 0 || cs[i].Accuracy > cs[bestCV].Accuracy {
				bestCV = i
			}
		}
	}
	ch.Chosen, ch.Prior = ch.Best, -1
	for i, c := range cs {
		if c.Kind == prior {
			ch.Prior = i
			break
		}
	}
	if prior == CrossValidated {
		ch.Prior = bestCV
	}
	if ch.Prior >= 0 {
		onlyBest, onlyPrior := 0, 0
		for i := range fold {
			b, p := rights[ch.Best][i], rights[ch.Prior][i]
			switch {
			case b < 0 || p < 0:
			case b == 1 && p == 0:
				onlyBest++
			case p == 1 && b == 0:
				onlyPrior++
			}
		}
		if !(float64(onlyBest-onlyPrior) > 2*math.Sqrt(float64(onlyBest+onlyPrior))) {
			ch.Chosen = ch.Prior
		}
	}
	// The margin over the others, each on the labels both were scored on.
	chosen := cs[ch.Chosen]
	ch.Margin = math.Inf(1)
	for i, c := range cs {
		if i == ch.Chosen {
			continue
		}
		if i < nSup || ch.Chosen < nSup {
			ch.Margin = min(ch.Margin, chosen.HeldOutAccuracy-c.HeldOutAccuracy)
		} else {
			ch.Margin = min(ch.Margin, chosen.Accuracy-c.Accuracy)
		}
	}
	ch.StdErr = math.Sqrt(chosen.Accuracy * (1 - chosen.Accuracy) / float64(chosen.Scored))
}

// cvFolds deals the known labels (columns cols, classes y) to folds:
// those held out are fold 0, the others, per class in a seeded random
// order, to folds 1..folds−1 in turn (continuing across classes, so that
// the folds are of equal size within one). It returns each label's fold.
func cvFolds(cols, y []int, held []bool, classes, folds int, seed uint64) []int {
	fold := make([]int, len(cols))
	byClass := make([][]int, classes)
	for i, j := range cols {
		if !held[j] {
			byClass[y[i]] = append(byClass[y[i]], i)
		}
	}
	rng := tensor.NewRand(seed ^ 0x666f6c64)
	next := 0
	for _, idx := range byClass {
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		for _, i := range idx {
			fold[i] = 1 + next%(folds-1)
			next++
		}
	}
	return fold
}

// holdOut splits the known labels of sup: per class, a share of them
// (rounded down, at least one of two or more) drawn with seed is held out,
// the rest trained on. It returns the two marks and their counts (held
// out, known in all).
func holdOut(sup *neuralnmf.Supervision, share float64, seed uint64) (train, held []bool, nHeld, nKnown int) {
	n := len(sup.Labels)
	train, held = make([]bool, n), make([]bool, n)
	byClass := map[int][]int{}
	for j, l := range sup.Labels {
		if l >= 0 && (sup.Known == nil || sup.Known[j]) {
			byClass[l] = append(byClass[l], j)
			train[j] = true
			nKnown++
		}
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	rng := tensor.NewRand(seed ^ 0x686f6c64)
	for _, c := range classes {
		idx := byClass[c]
		if len(idx) < 2 {
			continue
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		k := max(1, int(share*float64(len(idx))))
		for _, j := range idx[:k] {
			train[j], held[j] = false, true
			nHeld++
		}
	}
	return train, held, nHeld, nKnown
}
