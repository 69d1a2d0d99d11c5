// Package plot draws matrices as heatmaps and writes them as PNG files.
//
// Heatmaps lays out one or more panels side by side on a shared colour scale
// (a viridis-like map from VMin to VMax) under a figure title, each panel
// with a title, axis captions, first and last index ticks, and a colour bar
// labelled with its quantity and range. WritePNG
// writes atomically, so a failed write never leaves a partial file behind.
package plot

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Panel is one heatmap: M drawn with row 0 at the top.
type Panel struct {
	Title string
	M     *tensor.Dense
	// RowLabel and ColLabel caption the axes, e.g. "features" and "samples".
	RowLabel, ColLabel string
	// RowNames, if not nil, names each row of M (one per row), written
	// left of it; the cells are then at least one line of text high.
	// Panels with more rows than MaxNamedRows are drawn without them.
	RowNames []string
}

// MaxNamedRows is the most rows whose names Heatmaps writes.
const MaxNamedRows = 200

// Options configures Heatmaps. The zero value (or nil) gives the defaults.
type Options struct {
	// Cell is the size of one matrix entry in pixels. Default: the largest
	// integer that keeps the tallest panel within 360 pixels and all panels
	// together within 1800 pixels wide (at least 1).
	Cell int
	// VMin and VMax bound the colour scale, shared by all panels. If both
	// are zero, the scale runs from min(0, smallest entry) to the largest
	// entry over all panels.
	VMin, VMax float64
	// Title is the figure's title, above the panels: what is shown (method,
	// data, ranks).
	Title string
	// BarLabel names the colour bar's quantity ("value" if empty).
	BarLabel string
}

const (
	margin  = 12
	textH   = 14 // Go Mono at 12 px: line height 14, advance 7
	charW   = 7
	barW    = 14
	tickGap = 4
)

// MaxCells bounds the rows and the columns drawn per panel. A matrix with
// more is drawn as the means of blocks of consecutive rows (columns), at most
// MaxCells of them, and its caption says how many entries each cell
// averages; the index ticks keep the matrix's own indices. So no matrix,
// however tall or wide, gives an image beyond about 2000 pixels a side.
const MaxCells = 1600

// shrink returns m averaged over blocks of br consecutive rows and bc
// consecutive columns, with br and bc the smallest that fit MaxCells.
func shrink(m *tensor.Dense) (out *tensor.Dense, br, bc int) {
	br, bc = (m.Rows+MaxCells-1)/MaxCells, (m.Cols+MaxCells-1)/MaxCells
	if br == 1 && bc == 1 {
		return m, 1, 1
	}
	r, c := (m.Rows+br-1)/br, (m.Cols+bc-1)/bc
	out = tensor.New(r, c)
	cnt := make([]float64, r*c)
	for i := 0; i < m.Rows; i++ {
		row := m.Row(i)
		for j, v := range row {
			k := (i/br)*c + j/bc
			out.Data[k] += v
			cnt[k]++
		}
	}
	for k := range out.Data {
		out.Data[k] /= cnt[k]
	}
	return out, br, bc
}

// Heatmaps draws the panels side by side. It returns an error if there are no
// panels, a panel is empty, or a value is not finite. Panels larger than
// MaxCells in either direction are drawn averaged in blocks (see MaxCells).
func Heatmaps(panels []Panel, opt *Options) (*image.RGBA, error) {
	if len(panels) == 0 {
		return nil, errors.New("plot: no panels")
	}
	face, err := newFace()
	if err != nil {
		return nil, err
	}
	type orig struct{ rows, cols, br, bc int }
	origs := make([]orig, len(panels))
	panels = append([]Panel(nil), panels...)
	for i, p := range panels {
		if p.M == nil || p.M.Len() == 0 {
			continue // reported below
		}
		if err := tensor.CheckFinite(fmt.Sprintf("panel %d (%q)", i, p.Title), p.M); err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		m, br, bc := shrink(p.M)
		origs[i] = orig{p.M.Rows, p.M.Cols, br, bc}
		panels[i].M = m
	}
	var o Options
	if opt != nil {
		o = *opt
	}
	maxRows := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range panels {
		if err := tensor.CheckNotEmpty(fmt.Sprintf("panel %d (%q)", i, p.Title), p.M); err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		if err := tensor.CheckFinite(fmt.Sprintf("panel %d (%q)", i, p.Title), p.M); err != nil {
			return nil, fmt.Errorf("plot: %w", err)
		}
		maxRows = max(maxRows, p.M.Rows)
		for r := 0; r < p.M.Rows; r++ {
			for _, v := range p.M.Row(r) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if o.VMin == 0 && o.VMax == 0 {
		o.VMin, o.VMax = math.Min(0, lo), hi
	}
	if !(o.VMax > o.VMin) {
		o.VMax = o.VMin + 1
	}
	if o.Cell <= 0 {
		cols := 0
		for _, pn := range panels {
			cols += pn.M.Cols
		}
		// The tallest panel within 360 pixels, all panels side by side
		// within 1800.
		o.Cell = max(1, min(360/maxRows, 1800/max(1, cols)))
	}
	labelW := charW * len(strconv.Itoa(maxRows)) // row ticks
	for i, p := range panels {
		if len(p.RowNames) != p.M.Rows || p.M.Rows > MaxNamedRows || origs[i].br > 1 {
			panels[i].RowNames = nil
			continue
		}
		o.Cell = max(o.Cell, textH)
		for _, n := range p.RowNames {
			labelW = max(labelW, charW*utf8.RuneCountInString(n))
		}
	}
	// Layout: per panel [labelW+gap][matrix] side by side, then the bar.
	x := margin
	type box struct{ x0, y0 int }
	var boxes []box
	titleH := 0
	if o.Title != "" {
		titleH = textH + tickGap
	}
	top := margin + titleH + 2*textH + tickGap
	captions := make([]string, len(panels))
	for i, p := range panels {
		og := origs[i]
		c := fmt.Sprintf("%d×%d", og.rows, og.cols)
		if p.RowLabel != "" || p.ColLabel != "" {
			c = fmt.Sprintf("rows: %s, cols: %s", p.RowLabel, p.ColLabel)
		}
		if og.br > 1 || og.bc > 1 {
			c += fmt.Sprintf("; each cell the mean of %d×%d entries", og.br, og.bc)
		}
		captions[i] = c
	}
	for i, p := range panels {
		x += labelW + tickGap
		boxes = append(boxes, box{x, top})
		w := max(p.M.Cols*o.Cell, charW*max(utf8.RuneCountInString(p.Title), utf8.RuneCountInString(captions[i])))
		x += w + 2*margin
	}
	barX := x
	if o.BarLabel == "" {
		o.BarLabel = "value"
	}
	width := barX + barW + tickGap + charW*max(10, utf8.RuneCountInString(o.BarLabel)) + margin
	width = max(width, 2*margin+charW*utf8.RuneCountInString(o.Title))
	height := top + maxRows*o.Cell + tickGap + 2*textH + margin
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)

	for i, p := range panels {
		b := boxes[i]
		drawText(img, face, b.x0, margin+titleH+textH, p.Title)
		for r := 0; r < p.M.Rows; r++ {
			for c, v := range p.M.Row(r) {
				col := Viridis((v - o.VMin) / (o.VMax - o.VMin))
				fill(img, b.x0+c*o.Cell, b.y0+r*o.Cell, o.Cell, o.Cell, col)
			}
		}
		bottom := b.y0 + p.M.Rows*o.Cell
		// Index ticks, counting from 1 as topics and layers do: first and
		// last row on the left (or every row's name), first and last
		// column below.
		og := origs[i]
		if p.RowNames != nil {
			for r, n := range p.RowNames {
				drawText(img, face, b.x0-tickGap-charW*utf8.RuneCountInString(n), b.y0+r*o.Cell+(o.Cell+textH)/2-3, n)
			}
		} else {
			drawText(img, face, b.x0-tickGap-labelW, b.y0+textH-3, "1")
			last := strconv.Itoa(og.rows)
			drawText(img, face, b.x0-tickGap-charW*len(last), bottom, last)
		}
		drawText(img, face, b.x0, bottom+textH, "1")
		lastC := strconv.Itoa(og.cols)
		drawText(img, face, b.x0+p.M.Cols*o.Cell-charW*len(lastC), bottom+textH, lastC)
		drawText(img, face, b.x0, bottom+2*textH, captions[i])
	}
	if o.Title != "" {
		drawText(img, face, margin, margin+textH, o.Title)
	}
	// Colour bar, its quantity above it.
	drawText(img, face, barX, top-tickGap, o.BarLabel)
	h := maxRows * o.Cell
	for yy := 0; yy < h; yy++ {
		fill(img, barX, top+yy, barW, 1, Viridis(1-float64(yy)/float64(max(1, h-1))))
	}
	drawText(img, face, barX+barW+tickGap, top+textH-3, strconv.FormatFloat(o.VMax, 'g', 3, 64))
	drawText(img, face, barX+barW+tickGap, top+h, strconv.FormatFloat(o.VMin, 'g', 3, 64))
	return img, nil
}

func fill(img *image.RGBA, x, y, w, h int, c color.RGBA) {
	draw.Draw(img, image.Rect(x, y, x+w, y+h), &image.Uniform{C: c}, image.Point{}, draw.Src)
}

// newFace returns Go Mono at 12 pixels (advance 7, line height 14), a
// monospace face with ×, superscript digits and parentheses, and the minus
// sign. A new face per image: faces cache glyphs and are not safe to share.
func newFace() (font.Face, error) {
	f, err := opentype.Parse(gomono.TTF)
	if err != nil {
		return nil, fmt.Errorf("plot: font: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 12, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("plot: font: %w", err)
	}
	return face, nil
}

// fallback maps the few characters the captions may use that Go Mono lacks.
var fallback = map[rune]rune{'ᴸ': 'L', 'ˡ': 'l'}

func drawText(img *image.RGBA, face font.Face, x, y int, s string) {
	s = strings.Map(func(r rune) rune {
		if _, _, ok := face.GlyphBounds(r); ok {
			return r
		}
		if f, ok := fallback[r]; ok {
			return f
		}
		return '?'
	}, s)
	d := font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// viridis anchors, evenly spaced on [0, 1].
var viridis = [...][3]float64{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}

// Viridis maps t in [0, 1] (clamped) to a colour of a viridis-like map.
func Viridis(t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t))
	if math.IsNaN(t) {
		t = 0
	}
	f := t * float64(len(viridis)-1)
	i := min(int(f), len(viridis)-2)
	u := f - float64(i)
	var c [3]uint8
	for k := range c {
		c[k] = uint8(math.Round(viridis[i][k]*(1-u) + viridis[i+1][k]*u))
	}
	return color.RGBA{c[0], c[1], c[2], 255}
}

// WritePNG encodes img as PNG to path atomically (see matio.WriteAtomic):
// path is either left as it was or replaced whole.
func WritePNG(path string, img image.Image) error {
	return matio.WriteAtomic(path, func(f *os.File) error { return png.Encode(f, img) })
}
