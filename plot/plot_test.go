package plot_test

import (
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/plot"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func TestHeatmapsRoundTrip(t *testing.T) {
	m := tensor.MustFromRows([][]float64{{0, 1}, {2, 3}})
	img, err := plot.Heatmaps([]plot.Panel{{Title: "a", M: m}, {Title: "b", M: m}}, &plot.Options{Cell: 10})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "h.png")
	require.NoError(t, plot.WritePNG(path, img))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	dec, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, img.Bounds(), dec.Bounds())
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	// On the shared scale 0..3, the cells holding 0, 1 and 3 have the map's
	// colours at 0, 1/3 and 1: each appears as at least two 10×10 cells (one
	// per panel).
	count := map[color.RGBA]int{}
	bnd := dec.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			r, g, b, a := dec.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}]++
		}
	}
	for _, v := range []float64{0, 1.0 / 3, 1} {
		require.GreaterOrEqual(t, count[plot.Viridis(v)], 200, "colour for %.3f", v)
	}
	require.Equal(t, plot.Viridis(1), plot.Viridis(1.7), "values above VMax are clamped")
}

func TestHeatmapsErrors(t *testing.T) {
	_, err := plot.Heatmaps(nil, nil)
	require.Error(t, err)
	_, err = plot.Heatmaps([]plot.Panel{{Title: "e", M: tensor.New(0, 3)}}, nil)
	require.ErrorContains(t, err, `panel 0 ("e")`)
	bad := tensor.MustFromRows([][]float64{{math.NaN()}})
	_, err = plot.Heatmaps([]plot.Panel{{Title: "n", M: bad}}, nil)
	require.ErrorContains(t, err, "not finite")
}

// The matrices: a 45534×10 A⁽⁰⁾ made a 315×45618-pixel PNG and a
// 6×100000 S one 60147 pixels wide. Every image must fit about 2000 pixels
// a side, and a shrunk panel must keep its own dimensions in the ticks.
func TestHeatmapCanvasIsBounded(t *testing.T) {
	for _, sh := range [][2]int{{45534, 10}, {6, 100000}, {3000, 3000}, {20, 30}} {
		m := tensor.Uniform(sh[0], sh[1], 0, 1, tensor.NewRand(1))
		img, err := plot.Heatmaps([]plot.Panel{{Title: "A⁽⁰⁾ 45534×10", M: m, RowLabel: "features", ColLabel: "topics"}}, nil)
		require.NoError(t, err)
		b := img.Bounds()
		require.LessOrEqual(t, b.Dx(), 2100, "%v", sh)
		require.LessOrEqual(t, b.Dy(), 2100, "%v", sh)
		t.Logf("%d×%d → %d×%d px", sh[0], sh[1], b.Dx(), b.Dy())
	}
}
