package news20_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/paper/news20"
)

// The split trains on 500 and validates on 250 of the 750 known labels, and
// hides every other label.
func TestValidationSplit(t *testing.T) {
	d := load(t)
	train, labels := news20.ValidationSplit(d)
	nTrain, nVal := 0, 0
	for p := range labels {
		switch {
		case !d.KnownNNMF[p]:
			require.Equal(t, -1, labels[p], "column %d is an evaluation document", p)
			require.False(t, train[p])
		case train[p]:
			nTrain++
			require.Equal(t, d.Super[p], labels[p])
		default:
			nVal++
			require.Equal(t, d.Super[p], labels[p])
		}
	}
	require.Equal(t, 500, nTrain)
	require.Equal(t, 250, nVal)
}

// Validate's accuracies do not change when the evaluation documents'
// labels do: the protocol cannot see them.
func TestValidateNeverReadsEvaluationLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("trains Neural NMF four times on the 20 Newsgroups matrix")
	}
	d := load(t)
	c := news20.Candidates[3] // semi-supervised, authors' GD from random
	require.True(t, c.Semi)
	c.Config.Epochs = 5
	o := news20.ValidateOptions{Seeds: 2, Candidates: []news20.Candidate{c}}
	v1, err := news20.Validate(d, o)
	require.NoError(t, err)
	for p := range d.Super {
		if !d.KnownNNMF[p] {
			d.Super[p] = (d.Super[p] + 1 + p%5) % news20.Classes
		}
	}
	v2, err := news20.Validate(d, o)
	require.NoError(t, err)
	require.Equal(t, v1.Acc, v2.Acc)
	require.Equal(t, 0, v1.SemiSupervised)
	require.Equal(t, -1, v1.Unsupervised, "no unsupervised candidate")
	var b bytes.Buffer
	v1.WriteTable(&b)
	require.Contains(t, b.String(), "differs from the default", "5 epochs is not the default")
}

// The candidates include today's defaults, so that Validate can say whether
// its choice is the default.
func TestCandidatesIncludeDefaults(t *testing.T) {
	var un, semi bool
	for _, c := range news20.Candidates {
		un = un || (!c.Semi && c.Config == news20.DefaultUnsupervised)
		semi = semi || (c.Semi && c.Config == news20.DefaultSemiSupervised)
	}
	require.True(t, un, "DefaultUnsupervised is a candidate")
	require.True(t, semi, "DefaultSemiSupervised is a candidate")
}
