package main

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// The bound on the time left is the mean epoch time since training began
// times the epochs to the cap, known after the first epoch (it once said
// "at most 0s to go" after pass 1 of 3 of a 90-second pass); without the
// phase no bound is printed rather than a wrong one.
func TestProgressTimeLeft(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cap      int
		phase    bool
		epochs   int
		want     string
		wantNone bool
	}{
		{"phase, first epoch", 3, true, 1, "at most 4s to go", false},
		{"phase, last epoch", 3, true, 3, "at most 0s to go", false},
		{"no phase, first epoch", 3, false, 1, "", true},
		{"no phase, cap reached", 1, false, 1, "at most 0s to go", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := &fitProgress{w: &buf, begin: time.Now(), cap: tc.cap}
			if tc.phase {
				p.training()
				p.trainTime = p.trainTime.Add(-2 * time.Second * time.Duration(tc.epochs)) // 2 s an epoch
			}
			p.epochs = tc.epochs
			p.writeEpoch(neuralnmf.Epoch{Epoch: tc.epochs, Epochs: tc.cap}, time.Now())
			if tc.wantNone {
				require.NotContains(t, buf.String(), "to go")
				return
			}
			require.Contains(t, buf.String(), tc.want)
		})
	}
}

// labelsToTell's count is the n at which two standard errors of an
// accuracy p, √(p(1−p)/n), fall to the margin.
func TestLabelsToTell(t *testing.T) {
	p, n, margin := 0.8, 100, 0.05
	se := math.Sqrt(p * (1 - p) / float64(n))
	got := labelsToTell(margin, se, n)
	// 4·0.16/0.05² = 256 labels, 2.6 times as many.
	require.Equal(t, "about 256 scored labels would tell this margin from chance (2.6 times as many)", got)
	require.Contains(t, labelsToTell(0, se, n), "no number of labels")
}
