package semisup_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// sixGroups is X (36×120) of six groups of columns, each on its own block
// of six features, with labels the groups: ranks 6,2 can read the classes
// from layer 1 but not from the 2 topics of layer 2.
func sixGroups() (*tensor.Dense, []int) {
	rng := tensor.NewRand(5)
	x := tensor.New(36, 120)
	y := make([]int, 120)
	for j := range y {
		y[j] = j % 6
		for i := 0; i < 36; i++ {
			v := 0.05 * rng.Float64()
			if i/6 == y[j] {
				v += 0.5 + rng.Float64()
			}
			x.Set(i, j, v)
		}
	}
	return x, y
}

// With six classes and two topics in the last layer, the read-out of the
// unsupervised first layer wins on the held-out labels, and the model
// returned classifies through layer 1, saved and loaded as such.
func TestTrainChoosingPicksTheLayerThatReadsTheClasses(t *testing.T) {
	x, y := sixGroups()
	known := make([]bool, len(y))
	labels := make([]int, len(y))
	for j := range y {
		known[j] = j < 30 // 30 known labels, 5 per class
		labels[j] = -1
		if known[j] {
			labels[j] = y[j]
		}
	}
	cfg := neuralnmf.Config{Ranks: []int{6, 2}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 6, Known: known}}
	m, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: []semisup.Kind{semisup.SupervisedFit, semisup.UnsupervisedReadout}})
	require.NoError(t, err)
	require.Equal(t, 30, ch.Known)
	require.Equal(t, 6, ch.HeldOut, "one of the five known labels of each class")
	require.Len(t, ch.Candidates, 3, "supervised, read-out of layer 2, read-out of layer 1")
	require.Equal(t, semisup.DefaultFolds, ch.Folds)
	best := ch.Candidates[ch.Chosen]
	for _, c := range ch.Candidates {
		if c.Kind == semisup.SupervisedFit {
			require.Equal(t, 6, c.Scored, "a supervised fit is scored on the held-out labels")
			require.Equal(t, c.HeldOutAccuracy, c.Accuracy)
			require.Less(t, c.HeldOutAccuracy, best.HeldOutAccuracy, "the supervised fit is chosen when at least as good on the held-out labels")
			continue
		}
		require.Equal(t, 30, c.Scored, "a read-out is cross-validated on every known label")
		require.LessOrEqual(t, c.Accuracy, best.Accuracy, "the chosen candidate has the best cross-validated accuracy")
	}
	require.Equal(t, semisup.UnsupervisedReadout, best.Kind, "%+v", ch.Candidates)
	require.Equal(t, 1, best.Layer, "%+v", ch.Candidates)
	require.Equal(t, 1, m.ClassifierLayer)
	require.Equal(t, 6, m.B.Cols)
	acc := classify.Accuracy(m.Predict(), y)
	require.Greater(t, acc, 0.95, "every column, known or not")

	var buf bytes.Buffer
	require.NoError(t, m.Write(&buf))
	back, err := neuralnmf.Read(&buf)
	require.NoError(t, err)
	require.Equal(t, 1, back.ClassifierLayer)
	pred, _, err := back.Classify(x)
	require.NoError(t, err)
	require.Equal(t, m.Predict(), pred)

	// With the supervised fit's own read-outs and the regressions on the
	// words among the candidates, the chosen model still reads layer 1
	// (the words do no better here, and ties go to the earlier
	// candidate). The supervised read-out of layer 1 ties on the held-out
	// labels, so it is Best, but by default the best cross-validated
	// candidate is the prior, which a supervised fit must beat clearly.
	m, ch, err = semisup.TrainChoosing(x, cfg, nil)
	require.NoError(t, err)
	require.Len(t, ch.Candidates, 9)
	require.Equal(t, semisup.SupervisedReadout, ch.Candidates[ch.Best].Kind, "%+v", ch.Candidates)
	require.Equal(t, semisup.UnsupervisedReadout, ch.Candidates[ch.Prior].Kind, "%+v", ch.Candidates)
	require.Equal(t, ch.Prior, ch.Chosen)
	require.Equal(t, 1, ch.Candidates[ch.Chosen].Layer, "%+v", ch.Candidates)
	require.Equal(t, 1, m.ClassifierLayer)
	require.Greater(t, classify.Accuracy(m.Predict(), y), 0.95)

	// With the spread labels as the prior, they win every tie (here
	// several candidates get all six held-out labels right).
	m, ch, err = semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Prior: semisup.SpreadWords})
	require.NoError(t, err)
	require.Equal(t, semisup.SpreadWords, ch.Candidates[ch.Chosen].Kind)
	require.Equal(t, ch.Prior, ch.Chosen)
	require.Equal(t, 2, ch.Best, "the first of highest held-out accuracy")
	pred, _, err = m.Classify(x)
	require.NoError(t, err)
	require.Greater(t, classify.Accuracy(pred, y), 0.95)
}

// The held-out labels are a stratified, seeded share of the known ones;
// with a single known label per class nothing is held out and the
// supervised fit is trained as given.
func TestTrainChoosingHoldOut(t *testing.T) {
	x, y := sixGroups()
	cfg := neuralnmf.Config{Ranks: []int{6, 2}, Seed: 1, Epochs: 30, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 6}}
	_, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{HoldOut: 0.25, Balances: []float64{0.3, 1}})
	require.NoError(t, err)
	require.Equal(t, 120, ch.Known)
	require.Equal(t, 30, ch.HeldOut, "a quarter of each class's 20 labels")
	require.Len(t, ch.Candidates, 11, "per balance its classifier and two read-outs, then two unsupervised read-outs and three regressions on the words (every label is known: none self-trained)")
	require.Equal(t, []semisup.Kind{semisup.Words, semisup.TopicsWords, semisup.SpreadWords}, []semisup.Kind{ch.Candidates[8].Kind, ch.Candidates[9].Kind, ch.Candidates[10].Kind})
	require.Equal(t, []int{0, 1}, []int{ch.Candidates[8].Layer, ch.Candidates[9].Layer})
	_, ch, err = semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{HoldOut: 0.25, Balances: []float64{0.3, 1}, Kinds: []semisup.Kind{semisup.SupervisedFit, semisup.UnsupervisedReadout}})
	require.NoError(t, err)
	require.Len(t, ch.Candidates, 4)
	require.Equal(t, semisup.SupervisedFit, ch.Candidates[0].Kind)
	require.Equal(t, semisup.SupervisedFit, ch.Candidates[1].Kind)

	one := make([]int, len(y))
	for j := range one {
		one[j] = -1
		if j < 6 {
			one[j] = y[j]
		}
	}
	oneKnown := make([]bool, len(y))
	for j := range oneKnown {
		oneKnown[j] = j < 6
	}
	cfg.Supervision = &neuralnmf.Supervision{Labels: one, Classes: 6, Known: oneKnown}
	m, ch, err := semisup.TrainChoosing(x, cfg, nil)
	require.NoError(t, err)
	require.Equal(t, -1, ch.Chosen)
	require.Zero(t, ch.HeldOut)
	require.NotNil(t, m.B)
	require.Zero(t, m.ClassifierLayer)

	for _, bad := range []semisup.ChooseOptions{{HoldOut: 1}, {HoldOut: -0.1}, {Folds: 1}, {Folds: -2}, {Balances: []float64{0}}, {Kinds: []semisup.Kind{0}}, {Kinds: []semisup.Kind{}}, {Layer: 3}, {Layer: -1}} {
		_, _, err := semisup.TrainChoosing(x, cfg, &bad)
		require.ErrorIs(t, err, neuralnmf.ErrConfig)
	}
	cfg.Supervision = nil
	_, _, err = semisup.TrainChoosing(x, cfg, nil)
	require.ErrorIs(t, err, neuralnmf.ErrConfig)
}

// markedGroups is X (40×160): three strong topics that every column mixes
// at random, and the class of each column (one of four) marked only by a
// weak entry in one of four marker rows, which a rank-3 factorisation
// leaves out. It returns X and the classes.
func markedGroups(seed uint64) (*tensor.Dense, []int) {
	rng := tensor.NewRand(seed)
	x := tensor.New(40, 160)
	y := make([]int, 160)
	for j := range y {
		y[j] = rng.IntN(4)
		for t := 0; t < 3; t++ {
			w := rng.Float64()
			for i := 12 * t; i < 12*t+12; i++ {
				x.Set(i, j, w*(1+0.2*rng.Float64()))
			}
		}
		x.Set(36+y[j], j, 0.3)
	}
	return x, y
}

// Where the classes live in words that the topics leave out, a logistic
// regression on the words wins the choice; the model's classifier then
// reads X (BX, Intercept), classifies new columns through Classify with
// the same scores as Scores, and survives a save and load.
func TestTrainChoosingReadsTheWords(t *testing.T) {
	x, y := markedGroups(3)
	known := make([]bool, len(y))
	for j := range known {
		known[j] = j%2 == 0
	}
	cfg := neuralnmf.Config{Ranks: []int{3}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 4, Known: known}}
	m, ch, err := semisup.TrainChoosing(x, cfg, nil)
	require.NoError(t, err)
	best := ch.Candidates[ch.Chosen]
	readsWords := []semisup.Kind{semisup.Words, semisup.TopicsWords, semisup.SelfTrainedWords}
	require.Contains(t, readsWords, best.Kind, "%+v", ch.Candidates)
	require.Equal(t, ch.Best, ch.Chosen)
	_, spread, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Prior: semisup.SpreadWords})
	require.NoError(t, err)
	require.NotEqual(t, spread.Prior, spread.Chosen, "the neighbours on the words follow the strong topics, not the classes: the regression beats the spread prior clearly")
	require.Greater(t, best.Accuracy, 0.9)
	for _, c := range ch.Candidates {
		if !slices.Contains(readsWords, c.Kind) {
			require.Less(t, c.Accuracy, 0.7, "topics cannot read the marker rows: %+v", c)
		}
	}
	require.NotNil(t, m.BX)
	require.NotNil(t, m.Intercept)
	require.Nil(t, m.Predict(), "Predict cannot score a classifier that reads X")

	xNew, yNew := markedGroups(4)
	pred, scores, err := m.Classify(xNew)
	require.NoError(t, err)
	require.Greater(t, classify.Accuracy(pred, yNew), 0.9, "unseen columns")
	s, err := m.Transform(xNew)
	require.NoError(t, err)
	pred2, scores2, err := m.Scores(tensor.SparseFromDense(xNew), s)
	require.NoError(t, err)
	require.Equal(t, pred, pred2)
	require.InDeltaSlice(t, scores.Data, scores2.Data, 1e-12)
	_, _, err = m.Scores(nil, s)
	require.ErrorContains(t, err, "no x was given")
	_, _, err = m.Scores(tensor.New(39, xNew.Cols), s)
	require.ErrorIs(t, err, tensor.ErrShape)

	var buf bytes.Buffer
	require.NoError(t, m.Write(&buf))
	back, err := neuralnmf.Read(&buf)
	require.NoError(t, err)
	require.Equal(t, m.BX.Data, back.BX.Data)
	require.Equal(t, m.Intercept.Data, back.Intercept.Data)
	pred3, _, err := back.Classify(xNew)
	require.NoError(t, err)
	require.Equal(t, pred, pred3)
	back.BX = tensor.New(4, 39) // one row of X short
	require.ErrorContains(t, back.Write(&bytes.Buffer{}), "BX is 4×39, want 4×40")
	back.BX, back.B = m.BX, nil
	require.ErrorContains(t, back.Write(&bytes.Buffer{}), "has a BX or an Intercept and no B")

	// Pinned to the read-outs of layer 1, the choice has one candidate
	// and no supervised fit.
	m, ch, err = semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: []semisup.Kind{semisup.UnsupervisedReadout}, Layer: 1})
	require.NoError(t, err)
	require.Nil(t, m.BX)
	require.Len(t, ch.Candidates, 1)
	require.Equal(t, 1, m.ClassifierLayer)
	for _, k := range []semisup.Kind{semisup.SupervisedFit, semisup.SupervisedReadout, semisup.UnsupervisedReadout, semisup.Words, semisup.TopicsWords, semisup.SpreadWords} {
		back, err := semisup.ParseKind(k.String())
		require.NoError(t, err)
		require.Equal(t, k, back)
	}
	_, err = semisup.ParseKind("lasso")
	require.ErrorContains(t, err, `"lasso"`)
}

// Supervision.Patience stops a fit whose held-out accuracy has not risen
// above its best for that many epochs, and says so; the best came exactly
// Patience epochs before the end. A negative Patience is refused.
func TestPatienceStopsEarly(t *testing.T) {
	x, y := sixGroups()
	known := make([]bool, len(y))
	for j := range known {
		known[j] = j%4 < 2
	}
	cfg := neuralnmf.Config{Ranks: []int{6, 2}, Seed: 1, Tol: -1, Epochs: 2000,
		Supervision: &neuralnmf.Supervision{Labels: y, Classes: 6, Known: known, Patience: 7}}
	m, err := neuralnmf.Train(x, cfg)
	require.NoError(t, err)
	h := m.History
	n := len(h.Loss)
	require.Less(t, n, 2000)
	require.Contains(t, h.Stopped, "early stop")
	best := 0
	for e := range h.HeldOutAccuracy {
		if h.HeldOutAccuracy[e] > h.HeldOutAccuracy[best] {
			best = e
		}
	}
	require.Equal(t, n-1-7, best, "the first best held-out accuracy is 7 epochs before the last")

	cfg.Supervision.Patience = -1
	_, err = neuralnmf.Train(x, cfg)
	require.ErrorIs(t, err, neuralnmf.ErrConfig)
}

// A class with a single known label is never held out, and the fold that
// scores it trains without the class: the choice still runs, and the
// refitted model, which has that label, can predict the class.
func TestTrainChoosingWithAClassOfOneLabel(t *testing.T) {
	x, y := sixGroups()
	labels, known := make([]int, len(y)), make([]bool, len(y))
	seen := map[int]int{}
	for j := range y {
		labels[j] = -1
		limit := 5
		if y[j] == 5 {
			limit = 1
		}
		if seen[y[j]] < limit {
			seen[y[j]]++
			labels[j], known[j] = y[j], true
		}
	}
	cfg := neuralnmf.Config{Ranks: []int{6, 2}, Seed: 1, Epochs: 30, Supervision: &neuralnmf.Supervision{Labels: labels, Classes: 6, Known: known}}
	m, ch, err := semisup.TrainChoosing(x, cfg, nil)
	require.NoError(t, err)
	require.Equal(t, 26, ch.Known)
	require.Equal(t, 5, ch.HeldOut, "one of the five of each class but the last")
	require.GreaterOrEqual(t, ch.Chosen, 0)
	for _, c := range ch.Candidates {
		if c.Kind != semisup.SupervisedFit && c.Kind != semisup.SupervisedReadout {
			require.Equal(t, 26, c.Scored, "%+v", c)
		}
	}
	pred, _, err := m.Classify(x)
	require.NoError(t, err)
	require.Contains(t, pred, 5, "the class of one known label is predicted for some column")
}

// The summed candidate's model scores a column with the sum of the scores
// of the two regressions it sums, each as TrainChoosing refits it when
// pinned alone.
func TestTopicsWordsSpreadSumsTheTwoRegressions(t *testing.T) {
	x, y := markedGroups(3)
	known := make([]bool, len(y))
	for j := range known {
		known[j] = j%2 == 0
	}
	cfg := neuralnmf.Config{Ranks: []int{3}, Seed: 1, Epochs: 30, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 4, Known: known}}
	pin := func(prior semisup.Kind, ks ...semisup.Kind) (*neuralnmf.Model, *semisup.Choice) {
		m, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: ks, Prior: prior})
		require.NoError(t, err)
		return m, ch
	}
	sum, ch := pin(semisup.TopicsWordsSpread, semisup.TopicsWords, semisup.SpreadWords, semisup.TopicsWordsSpread)
	require.Len(t, ch.Candidates, 3)
	require.Equal(t, semisup.TopicsWordsSpread, ch.Candidates[ch.Chosen].Kind, "%+v", ch.Candidates)
	tw, _ := pin(0, semisup.TopicsWords)
	sp, _ := pin(0, semisup.SpreadWords)
	xNew, _ := markedGroups(4)
	_, s, err := sum.Classify(xNew)
	require.NoError(t, err)
	_, s1, err := tw.Classify(xNew)
	require.NoError(t, err)
	_, s2, err := sp.Classify(xNew)
	require.NoError(t, err)
	for i := range s.Data {
		require.InDelta(t, s1.Data[i]+s2.Data[i], s.Data[i], 1e-9*(1+math.Abs(s.Data[i])), "entry %d", i)
	}
	_, _, err = semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: []semisup.Kind{semisup.TopicsWordsSpread}})
	require.ErrorIs(t, err, neuralnmf.ErrConfig, "the sum without its two parts")
}

// The supervised topics+words candidate trains the unsupervised fit's
// topics with the labels through the regression on them and the words: it
// is scored on the held-out fold as a supervised fit is, and the model
// refitted from it reads layer 1 and the words (B, BX, Intercept), has
// A's that the labels moved away from the unsupervised fit's, and
// survives a save and load. Without topics+words among the kinds it is
// refused.
func TestSupervisedTopicsWords(t *testing.T) {
	x, y := markedGroups(3)
	known := make([]bool, len(y))
	for j := range known {
		known[j] = j%2 == 0
	}
	cfg := neuralnmf.Config{Ranks: []int{3, 2}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 4, Known: known}}
	kinds := []semisup.Kind{semisup.SupervisedTopicsWords, semisup.TopicsWords}
	var fits []string
	m, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: kinds, Prior: semisup.SupervisedTopicsWords,
		Fitting: func(run string) { fits = append(fits, run) }})
	require.NoError(t, err)
	require.Len(t, ch.Candidates, 2)
	joint := ch.Candidates[0]
	require.Equal(t, semisup.SupervisedTopicsWords, joint.Kind)
	require.Equal(t, ch.HeldOut, joint.Scored, "scored on the held-out fold alone")
	require.Greater(t, joint.HeldOutAccuracy, 0.9, "the words carry the classes")
	require.Equal(t, 0, ch.Chosen, "the prior, which the regression alone does not beat clearly: %+v", ch.Candidates)
	require.Len(t, fits, 3, "unsupervised, validation and refit: %q", fits)
	require.Contains(t, fits[1], "validation fit")
	require.Contains(t, fits[2], "refit on all 80 known labels")

	require.Equal(t, 1, m.ClassifierLayer)
	require.Equal(t, []int{4, 3}, []int{m.B.Rows, m.B.Cols})
	require.NotNil(t, m.BX)
	require.NotNil(t, m.Intercept)
	unsup := cfg
	unsup.Supervision = nil
	um, err := neuralnmf.Train(x, unsup)
	require.NoError(t, err)
	moved := 0.0
	for i, v := range m.A[0].Data {
		moved = max(moved, math.Abs(v-um.A[0].Data[i]))
	}
	require.Greater(t, moved, 1e-6, "the labels' gradient reached A⁽⁰⁾")
	require.Less(t, math.Abs(m.History.FinalRelError-um.History.FinalRelError), 0.05, "from the unsupervised fit, not far from it")

	xNew, yNew := markedGroups(4)
	pred := classifyTwice(t, m, xNew)
	require.Greater(t, classify.Accuracy(pred, yNew), 0.9, "unseen columns")

	_, _, err = semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: kinds[:1]})
	require.ErrorContains(t, err, "without topics+words")
	k, err := semisup.ParseKind("supervised-topics+words")
	require.NoError(t, err)
	require.Equal(t, semisup.SupervisedTopicsWords, k)
}

// A self-trained candidate is TopicsWords' or Words' regression
// self-trained on the unknown columns: cross-validated on every known
// label with that regression's C, chosen when it is the prior and not
// beaten clearly, refitted into a model that reads what that regression
// reads, and not the regression it starts from (the pseudo labels moved
// its weights). With every label known it is no candidate.
func TestSelfTrained(t *testing.T) {
	x, y := markedGroups(3)
	known := make([]bool, len(y))
	for j := range known {
		known[j] = j%8 == 0
	}
	cfg := neuralnmf.Config{Ranks: []int{3}, Seed: 1, Supervision: &neuralnmf.Supervision{Labels: y, Classes: 4, Known: known}}
	xNew, yNew := markedGroups(4)
	for _, tc := range []struct {
		base, self  semisup.Kind
		name, alone string
	}{
		{semisup.TopicsWords, semisup.SelfTrainedTopicsWords, "self-trained", "self-trained without topics+words"},
		{semisup.Words, semisup.SelfTrainedWords, "self-trained-words", "self-trained-words without words"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kinds := []semisup.Kind{tc.base, tc.self}
			m, ch, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: kinds, Prior: tc.self})
			require.NoError(t, err)
			require.Len(t, ch.Candidates, 2)
			self := ch.Candidates[1]
			require.Equal(t, tc.self, self.Kind)
			require.Equal(t, ch.Known, self.Scored, "cross-validated on every known label")
			require.Equal(t, ch.Candidates[0].C, self.C, "the C of the regression it self-trains")
			require.Equal(t, 1, ch.Chosen, "the prior, which the regression alone does not beat clearly: %+v", ch.Candidates)
			require.NotNil(t, m.BX)

			base, _, err := semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: kinds[:1]})
			require.NoError(t, err)
			require.Equal(t, base.ClassifierLayer, m.ClassifierLayer)
			moved := 0.0
			for i, v := range m.BX.Data {
				moved = max(moved, math.Abs(v-base.BX.Data[i]))
			}
			require.Greater(t, moved, 1e-3, "the pseudo labels moved the regression")

			pred := classifyTwice(t, m, xNew)
			predBase, _, err := base.Classify(xNew)
			require.NoError(t, err)
			t.Logf("unseen columns: %s %.3f, %s %.3f", tc.self, classify.Accuracy(pred, yNew), tc.base, classify.Accuracy(predBase, yNew))
			require.Greater(t, classify.Accuracy(pred, yNew), 0.85, "unseen columns")

			// With every label known there is nothing to self-train on:
			// the regression alone is compared, and is the prior.
			all := cfg
			all.Supervision = &neuralnmf.Supervision{Labels: y, Classes: 4}
			_, ch, err = semisup.TrainChoosing(x, all, &semisup.ChooseOptions{Kinds: kinds, Prior: tc.self})
			require.NoError(t, err)
			require.Len(t, ch.Candidates, 1)
			require.Equal(t, tc.base, ch.Candidates[0].Kind)
			require.Equal(t, 0, ch.Prior, "the regression stands in for the self-trained prior")

			_, _, err = semisup.TrainChoosing(x, cfg, &semisup.ChooseOptions{Kinds: kinds[1:]})
			require.ErrorContains(t, err, tc.alone)
			k, err := semisup.ParseKind(tc.name)
			require.NoError(t, err)
			require.Equal(t, tc.self, k)
		})
	}
}

// classifyTwice returns m's classes of the columns of x, and checks that
// the model written and read back gives the same.
func classifyTwice(t *testing.T, m *neuralnmf.Model, x *tensor.Dense) []int {
	t.Helper()
	pred, _, err := m.Classify(x)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, m.Write(&buf))
	back, err := neuralnmf.Read(&buf)
	require.NoError(t, err)
	pred2, _, err := back.Classify(x)
	require.NoError(t, err)
	require.Equal(t, pred, pred2)
	return pred
}
