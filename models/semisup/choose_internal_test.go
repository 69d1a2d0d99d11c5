package semisup

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// The choice between a supervised fit, scored on fold 0 alone, and the
// cross-validated candidates, scored on every fold: with no prior the
// supervised fit wins when it is at least as good on fold 0; with the best
// cross-validated candidate as the prior it must win clearly there.
func TestChooseWeighsTheSupervisedFitOnTheHeldOutFold(t *testing.T) {
	// 60 known labels, fold 0 the first 20.
	fold := make([]int, 60)
	for i := range fold {
		fold[i] = i / 20
	}
	// rights marks the first n0 labels of fold 0 right and, for a
	// cross-validated candidate, the first m of the other folds.
	rights := func(n0, m int, cv bool) []int8 {
		r := make([]int8, 60)
		for i := range r {
			switch {
			case i < 20:
				r[i] = int8(boolInt(i < n0))
			case !cv:
				r[i] = -1
			default:
				r[i] = int8(boolInt(i-20 < m))
			}
		}
		return r
	}
	cand := func(k Kind, r []int8) Candidate {
		var n, right, n0, right0 int
		for i, v := range r {
			if v < 0 {
				continue
			}
			n, right = n+1, right+int(v)
			if fold[i] == 0 {
				n0, right0 = n0+1, right0+int(v)
			}
		}
		return Candidate{Kind: k, Scored: n, Accuracy: float64(right) / float64(n), HeldOutAccuracy: float64(right0) / float64(n0)}
	}
	for _, tc := range []struct {
		name             string
		sup0             int // supervised: right of fold 0's 20
		prior            Kind
		wantSup, wantCV0 bool
	}{
		// The words regression: 12 of fold 0, 30 of the 40 others (0.70);
		// the read-out: 14 of fold 0, 20 of the others (0.57).
		{"no prior, supervised ahead by one", 13, NoPrior, true, false},
		{"no prior, a tie on fold 0 goes to the supervised fit", 12, NoPrior, true, false},
		{"no prior, supervised behind", 11, NoPrior, false, false},
		{"prior cv, supervised ahead by one", 13, CrossValidated, false, false},
		{"prior cv, supervised ahead clearly", 20, CrossValidated, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := [][]int8{rights(tc.sup0, 0, false), rights(14, 20, true), rights(12, 30, true)}
			ch := &Choice{Candidates: []Candidate{cand(SupervisedFit, r[0]), cand(UnsupervisedReadout, r[1]), cand(Words, r[2])}}
			ch.choose(1, r, tc.prior, fold)
			want := 2 // the words: the best cross-validated, though not on fold 0
			if tc.wantSup {
				want = 0
			}
			require.Equal(t, want, ch.Chosen, "%+v", ch)
			if tc.prior == CrossValidated {
				require.Equal(t, 2, ch.Prior)
			} else {
				require.Equal(t, -1, ch.Prior)
			}
		})
	}
}

// Issue 66, item 5: a prior of a kind that is not compared is refused
// before any fit (it was dropped, and the choice was the prior none's).
func TestPriorNotComparedIsRefused(t *testing.T) {
	cfg := neuralnmf.Config{Ranks: []int{2}, Supervision: &neuralnmf.Supervision{Labels: []int{0, 1, 0, 1}, Classes: 2}}
	for _, tc := range []struct {
		kinds []Kind
		prior Kind
		ok    bool
	}{
		{nil, SelfTrainedTopicsWords, false},
		{nil, SelfTrainedWords, true},
		{[]Kind{Words}, UnsupervisedReadout, false},
		{[]Kind{Words}, Words, true},
		{[]Kind{Words}, NoPrior, true},
		{[]Kind{Words}, CrossValidated, true},
	} {
		_, _, _, err := chooseOptions(cfg, &ChooseOptions{Kinds: tc.kinds, Prior: tc.prior})
		if tc.ok {
			require.NoError(t, err, "%v %v", tc.kinds, tc.prior)
		} else {
			require.ErrorIs(t, err, neuralnmf.ErrConfig, "%v %v", tc.kinds, tc.prior)
			require.ErrorContains(t, err, "is not among the kinds of candidate compared")
		}
	}
}

// Every kind is one complete value of the table (issue 67): a name that
// ParseKind reads back, a line of help, a way to be scored (cross-validated,
// or supervised on the held-out fold) and refitted, and needs that are
// kinds; the default kinds need nothing outside the defaults.
func TestKindTableIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		in := table[k]
		require.NotNil(t, in, "%v", k)
		require.NotEmpty(t, in.name)
		require.False(t, seen[in.name], "%s named twice", in.name)
		seen[in.name] = true
		got, err := ParseKind(k.String())
		require.NoError(t, err)
		require.Equal(t, k, got)
		require.NotEmpty(t, k.Help(), "%v", k)
		require.NotNil(t, in.refit, "%v", k)
		require.True(t, in.supervised != (in.score != nil), "%v: scored either on the folds or as a supervised fit", k)
		for _, n := range k.Needs() {
			require.NotNil(t, table[n], "%v needs %v", k, n)
			require.NotEmpty(t, in.why, "%v says why it needs %v", k, n)
		}
	}
	require.Len(t, table, len(Kinds()))
	def := map[Kind]bool{}
	for _, k := range DefaultKinds() {
		def[k] = true
	}
	for k := range def {
		for _, n := range k.Needs() {
			require.True(t, def[n], "default %v needs %v, not a default", k, n)
		}
	}
	_, err := ParseKind("lasso")
	require.ErrorContains(t, err, "want supervised, supervised-readout, supervised-topics+words, readout, words, topics+words, self-trained, self-trained-words, spread or topics+words+spread")
}
