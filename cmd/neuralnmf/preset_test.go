package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/paper/news20"
)

// fit -preset authors-semi on the 20 Newsgroups matrix with the 750 known
// labels gives the experiment's semi-supervised Neural NMF run (trial 0)
// exactly: the same model, so the same accuracy on the 250 evaluation
// documents. Opt-in (about 20 s): NEURALNMF_20NEWS=1.
func TestPresetReproducesExperiment(t *testing.T) {
	if os.Getenv("NEURALNMF_20NEWS") == "" {
		t.Skip("set NEURALNMF_20NEWS=1 to run on the 20 Newsgroups data")
	}
	dataDir := "../../../shared/data/20news"
	d, err := news20.Load(dataDir)
	require.NoError(t, err)
	dir := t.TempDir()
	var labels, mask strings.Builder
	for j, s := range d.Super {
		fmt.Fprintln(&labels, s)
		k := 0
		if d.KnownNNMF[j] {
			k = 1
		}
		fmt.Fprintln(&mask, k)
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	require.NoError(t, os.WriteFile(p("labels.txt"), []byte(labels.String()), 0o644))
	require.NoError(t, os.WriteFile(p("mask.txt"), []byte(mask.String()), 0o644))
	code, out, errOut := cli(t, "fit", "-x", filepath.Join(dataDir, "paper_subset", "X_tfidf.mtx.gz"), "-ranks", "10,6",
		"-labels", p("labels.txt"), "-label-mask", p("mask.txt"), "-preset", "authors-semi", "-seed", "0", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	t.Log(out)
	m, err := neuralnmf.Load(p("m.nnmf"))
	require.NoError(t, err)
	want, err := news20.Neural(d, true, 0, news20.DefaultSemiSupervised, 1)
	require.NoError(t, err)
	for l := range 2 {
		got := news20.LayerAccuracy(m.S[l], d.Super, d.KnownNNMF)
		require.Equal(t, want.Acc[l], got, "layer %d", l+1)
	}
	t.Logf("accuracy on the 250 evaluation documents: %.3f / %.3f (the experiment's trial 0)", want.Acc[0], want.Acc[1])
}

func TestExperimentFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"experiment", "20news", "-validate", "-lambda", "1"}, "-lambda has no effect with -validate"},
		{[]string{"experiment", "20news", "-validate", "-trials", "1"}, "needs at least 2 seeds"},
		{[]string{"experiment", "20news", "-test-per-group", "-1"}, "-test-per-group is -1"},
	} {
		code, _, errOut := cli(t, c.args...)
		require.Equal(t, 2, code, "%v: %s", c.args, errOut)
		require.Contains(t, errOut, c.want)
	}
}
