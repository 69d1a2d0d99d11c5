package quality_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// docs holds 4 words in 5 documents: {0,1}, {0,1}, {0,2}, {2}, {3}. By
// hand: word counts 3, 2, 2, 1; pairs (0,1) 2, (0,2) 1, every other 0.
func docs(t *testing.T) *tensor.Sparse {
	var e []tensor.Entry
	for j, words := range [][]int{{0, 1}, {0, 1}, {0, 2}, {2}, {3}} {
		for _, w := range words {
			e = append(e, tensor.Entry{Row: w, Col: j, Val: 1})
		}
	}
	x, err := tensor.NewSparse(4, 5, e)
	require.NoError(t, err)
	return x
}

// The NPMI of the pairs, computed by hand from the counts above:
// (0,1): ln(0.4 / (0.6·0.4)) / −ln 0.4 = 0.5108256 / 0.9162907 = 0.557493;
// (0,2): ln(0.2 / (0.6·0.4)) / −ln 0.2 = −0.1823216 / 1.6094379 = −0.113283;
// (1,2) never together: −1.
func TestPairNPMI(t *testing.T) {
	c := quality.NewCooccurrence(docs(t))
	require.Equal(t, 3, c.Count(0))
	require.Equal(t, 2, c.CountPair(0, 1))
	require.Equal(t, 1, c.CountPair(2, 0))
	require.InDelta(t, 0.557493, c.PairNPMI(0, 1), 1e-6)
	require.InDelta(t, 0.557493, c.PairNPMI(1, 0), 1e-6)
	require.InDelta(t, -0.113283, c.PairNPMI(0, 2), 1e-6)
	require.Equal(t, -1.0, c.PairNPMI(1, 2))
	require.Equal(t, -1.0, c.PairNPMI(0, 3))
	require.InDelta(t, (0.557493-0.113283-1)/3, c.NPMI([]int{0, 1, 2}), 1e-6)

	// Two words in every document: 0/0 in the formula, 1 by convention.
	all, err := tensor.NewSparse(2, 3, []tensor.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 1, Col: 0, Val: 2}, {Row: 0, Col: 1, Val: 1}, {Row: 1, Col: 1, Val: 1}, {Row: 0, Col: 2, Val: 3}, {Row: 1, Col: 2, Val: 1}})
	require.NoError(t, err)
	require.Equal(t, 1.0, quality.NewCooccurrence(all).PairNPMI(0, 1))
}

func TestMeasure(t *testing.T) {
	a0 := tensor.MustFromRows([][]float64{{1, 0}, {0.5, 0}, {0, 1}, {0, 0.5}})
	a1 := tensor.MustFromRows([][]float64{{3}, {1}})
	layers, err := quality.Measure(docs(t), []*tensor.Dense{a0, a1}, &quality.Options{Top: 2, DiversityTop: 2})
	require.NoError(t, err)
	require.Len(t, layers, 2)
	l0 := layers[0]
	require.Equal(t, []int{0, 1}, l0.Topics[0].Words)
	require.Equal(t, []int{2, 3}, l0.Topics[1].Words)
	require.InDelta(t, 0.557493, l0.Topics[0].NPMI, 1e-6)
	require.Equal(t, -1.0, l0.Topics[1].NPMI)
	require.InDelta(t, (0.557493-1)/2, l0.NPMI, 1e-6)
	require.Equal(t, 1.0, l0.Diversity)
	require.True(t, math.IsNaN(l0.Topics[0].ParentShare))
	// Layer 2's topic is 3·topic 1 + 1·topic 2 of layer 1, whose masses
	// are 1.5 each: its largest parent gives 4.5 of 6.
	l1 := layers[1]
	require.Equal(t, []int{0, 1}, l1.Topics[0].Words)
	require.InDelta(t, 0.75, l1.Topics[0].ParentShare, 1e-15)
	require.Equal(t, 1.0, l1.Diversity)

	require.InDelta(t, 0.5, quality.Diversity([][]int{{1, 2}, {2, 1}}), 0)
}

func TestMeasureErrors(t *testing.T) {
	a0 := tensor.MustFromRows([][]float64{{1, 0}, {0.5, 0}, {0, 1}, {0, 0.5}})
	for name, tc := range map[string]struct {
		docs *tensor.Sparse
		a    []*tensor.Dense
		opt  *quality.Options
		want string
	}{
		"no layers":      {docs(t), nil, nil, "no layers"},
		"features":       {docs(t), []*tensor.Dense{tensor.New(3, 2)}, nil, "4 features"},
		"chain":          {docs(t), []*tensor.Dense{a0, tensor.New(3, 1)}, nil, "want 2 rows"},
		"negative":       {docs(t), []*tensor.Dense{tensor.MustFromRows([][]float64{{-1}, {1}, {1}, {1}})}, nil, "A1"},
		"no documents":   {&tensor.Sparse{Rows: 4, Cols: 0, ColPtr: []int{0}}, []*tensor.Dense{a0}, nil, "no documents"},
		"one word a top": {docs(t), []*tensor.Dense{a0}, &quality.Options{Top: 1}, "Top ≥ 2"},
	} {
		_, err := quality.Measure(tc.docs, tc.a, tc.opt)
		require.ErrorContains(t, err, tc.want, name)
	}
}

// Issue 66, items 3 and 4, on the documents above: a topic's top words
// are its words of positive weight; one with two is scored on its pair,
// one with one has no NPMI and stays out of the layer's mean; Docs counts
// the documents holding two of the words (by hand: words {0,1,2} are
// together in documents 1, 2 and 3; the pair {0,1} in 1 and 2).
func TestTopWordsArePositive(t *testing.T) {
	a := tensor.New(4, 3)
	a.Set(0, 0, 0.7) // topic 0: words 0, 1
	a.Set(1, 0, 0.3)
	a.Set(2, 1, 1) // topic 1: word 2 alone
	a.Set(0, 2, 0.5)
	a.Set(1, 2, 0.3)
	a.Set(2, 2, 0.2) // topic 2: words 0, 1, 2
	require.Equal(t, [][]int{{0, 1}, {2}, {0, 1, 2}}, quality.TopWords(a, 10))
	layers, err := quality.Measure(docs(t), []*tensor.Dense{a}, &quality.Options{Top: 3})
	require.NoError(t, err)
	tp := layers[0].Topics
	require.InDelta(t, 0.557493, tp[0].NPMI, 1e-6)
	require.Equal(t, 2, tp[0].Docs)
	require.True(t, math.IsNaN(tp[1].NPMI))
	require.Equal(t, 0, tp[1].Docs)
	want2 := (0.557493 - 0.113283 - 1) / 3
	require.InDelta(t, want2, tp[2].NPMI, 1e-6)
	require.Equal(t, 3, tp[2].Docs)
	require.InDelta(t, (0.557493+want2)/2, layers[0].NPMI, 1e-6)
	// What each NPMI rests on, said: two words of three, in 2 documents;
	// one word; three words in 3 documents (all below MinDocs).
	require.Equal(t, []string{"NPMI of its only 2 words of positive weight", "NPMI from 2 document(s) holding two of its words"}, tp[0].Caveats(3))
	require.Equal(t, []string{"one word of positive weight: no NPMI"}, tp[1].Caveats(3))
	require.Equal(t, []string{"NPMI from 3 document(s) holding two of its words"}, tp[2].Caveats(3))
}

// Issue 69: specialization and hierarchical affinity agree with an
// independent computation (plain Python on the same numbers, in this
// comment's stead):
//
//	X (words × docs) = [[1,0,2,0],[0,1,1,0],[3,0,0,1],[0,2,0,1]]
//	A0 = [[.9,.1,0],[.1,.8,.2],[0,.1,.9],[0,0,.3]], A1 = [[.7,.1],[.6,.2],[.1,.8]]
//	specialization, layer 1: 0.480484 0.540734 0.180139 (mean 0.400452)
//	specialization, layer 2: 0.303207 0.111010 (mean 0.207108)
//	parents of the fine topics: 0 0 1; affinity children 0.843268, others 0.322749
func TestSpecializationAndAffinity(t *testing.T) {
	var e []tensor.Entry
	for i, row := range [][]float64{{1, 0, 2, 0}, {0, 1, 1, 0}, {3, 0, 0, 1}, {0, 2, 0, 1}} {
		for j, v := range row {
			if v != 0 {
				e = append(e, tensor.Entry{Row: i, Col: j, Val: v})
			}
		}
	}
	x, err := tensor.NewSparse(4, 4, e)
	require.NoError(t, err)
	a0, err := tensor.FromRows([][]float64{{.9, .1, 0}, {.1, .8, .2}, {0, .1, .9}, {0, 0, .3}})
	require.NoError(t, err)
	a1, err := tensor.FromRows([][]float64{{.7, .1}, {.6, .2}, {.1, .8}})
	require.NoError(t, err)
	layers, err := quality.Measure(x, []*tensor.Dense{a0, a1}, &quality.Options{Top: 2})
	require.NoError(t, err)
	for j, want := range []float64{0.480484, 0.540734, 0.180139} {
		require.InDelta(t, want, layers[0].Topics[j].Specialization, 1e-3)
	}
	for j, want := range []float64{0.303207, 0.111010} {
		require.InDelta(t, want, layers[1].Topics[j].Specialization, 1e-3)
	}
	require.InDelta(t, 0.400452, layers[0].Specialization, 1e-3)
	require.InDelta(t, 0.207108, layers[1].Specialization, 1e-3)
	require.True(t, math.IsNaN(layers[0].Affinity.Children), "no layer before the first")
	require.InDelta(t, 0.843268, layers[1].Affinity.Children, 1e-3)
	require.InDelta(t, 0.322749, layers[1].Affinity.NonChildren, 1e-3)
}
