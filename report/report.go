// Package report writes a trained Neural NMF model as one self-contained
// HTML page that a person can read: the topic hierarchy as a tree (each
// layer's topics with their top words and share of documents, edges from
// Aℓ weighted by strength), a table of the topics, heatmaps of the
// topic-to-topic matrices, the training curve, and, when labels are given,
// accuracy per layer and a confusion matrix.
//
// The page needs nothing else: no network, no scripts, no external fonts
// or styles. Figures are inline SVG, heatmaps inline PNG (data: URLs).
package report

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"html/template"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/plot"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Input is what Write reports on.
type Input struct {
	Model *neuralnmf.Model
	// Title heads the page (for example the model file's name).
	Title string
	// Vocab names the rows of X (the features). Without it topics are
	// described by feature numbers.
	Vocab []string
	// S, if not nil, is the documents' S of every layer (k⁽ˡ⁾ × M, for
	// example Model.Transform of the training columns), used instead of
	// Model.S: a model trained on streamed Columns holds no S.
	// Without either, the page has no document shares, no S heatmap and
	// no label sections.
	S []*tensor.Dense
	// Labels, if not nil, holds a class per document (column of S; −1
	// unknown); ClassNames optionally names the classes.
	Labels     []int
	ClassNames []string
	// Words is the number of top words per topic (default 10).
	Words int
	// Quality, if not nil, is the quality of every layer's topics
	// (quality.Measure of the model's A's on some documents): the topic
	// tables then show each topic's NPMI and parent share and each
	// layer's NPMI and diversity.
	Quality []quality.Layer
}

// layerView is one layer of the page.
type layerView struct {
	Index  int // 1-based
	Topics []topicView
	// Quality: whether NPMI and Diversity (and the topics' NPMI and
	// ParentShare) are known.
	Quality         bool
	NPMI, Diversity float64
}

type topicView struct {
	Index    int     // 1-based
	Share    float64 // −1: unknown (no S)
	Words    []string
	WordLine string
	NPMI     float64
	Parent   string // the parent share, "" on layer 1
}

// edge joins topic From of layer Layer−1 to topic To of layer Layer.
type edge struct {
	Layer, From, To int
	Weight          float64 // share of the subtopic's row of A⁽ˡ⁾
}

// Write writes the report of in as HTML to w. It returns an error for a
// model that is not usable, a vocabulary or label list of the wrong length,
// or labels outside the classes.
func Write(w io.Writer, in Input) error {
	m := in.Model
	if m == nil || len(m.A) == 0 {
		return errors.New("report: the model has no layers")
	}
	if in.Vocab != nil && len(in.Vocab) != m.A[0].Rows {
		return fmt.Errorf("report: Vocab has %d words for the model's %d features", len(in.Vocab), m.A[0].Rows)
	}
	S := in.S
	if S == nil {
		S = m.S
	}
	if err := checkS(S, m); err != nil {
		return err
	}
	M := 0
	if S != nil {
		M = S[0].Cols
	}
	if in.Labels != nil && S == nil {
		return errors.New("report: Labels need the documents' S: the model holds none (trained on streamed columns); give Input.S")
	}
	if in.Quality != nil && !qualityFits(in.Quality, m) {
		return errors.New("report: Quality does not describe the model's layers and topics")
	}
	if in.Labels != nil && len(in.Labels) != M {
		return fmt.Errorf("report: Labels has %d entries for the %d documents", len(in.Labels), M)
	}
	words := in.Words
	if words <= 0 {
		words = 10
	}
	names := in.Vocab
	if names == nil {
		names = make([]string, m.A[0].Rows)
		for i := range names {
			names[i] = fmt.Sprintf("feature %d", i+1)
		}
	}

	var layers []layerView
	for l, topics := range neuralnmf.LayerTopics(m.A) {
		share := shares(S, l, m.A[l].Cols)
		lv := layerView{Index: l + 1}
		for j, ws := range neuralnmf.TopWords(topics, names, words) {
			lv.Topics = append(lv.Topics, topicView{Index: j + 1, Share: share[j], Words: ws, WordLine: strings.Join(ws, ", ")})
		}
		if in.Quality != nil {
			q := in.Quality[l]
			lv.Quality, lv.NPMI, lv.Diversity = true, q.NPMI, q.Diversity
			for j, t := range q.Topics {
				lv.Topics[j].NPMI = t.NPMI
				if !math.IsNaN(t.ParentShare) {
					lv.Topics[j].Parent = fmt.Sprintf("%.0f %%", 100*t.ParentShare)
				}
			}
		}
		layers = append(layers, lv)
	}
	var edges []edge
	for l := 1; l < len(m.A); l++ {
		a := m.A[l]
		for i := 0; i < a.Rows; i++ {
			var sum float64
			for _, v := range a.Row(i) {
				sum += v
			}
			for j, v := range a.Row(i) {
				if sum > 0 && v/sum >= 0.05 {
					edges = append(edges, edge{Layer: l + 1, From: i, To: j, Weight: v / sum})
				}
			}
		}
	}

	page := struct {
		Title, Summary string
		Tree           template.HTML
		Layers         []layerView
		Heatmaps       []heatmap
		Curve          template.HTML
		Accuracy       []accRow
		Confusion      template.HTML
		LabelNote      string
	}{Title: in.Title, Layers: layers}
	if page.Title == "" {
		page.Title = "Neural NMF model"
	}
	ranks := make([]string, len(m.A))
	for l, a := range m.A {
		ranks[l] = fmt.Sprint(a.Cols)
	}
	if S != nil {
		page.Summary = fmt.Sprintf("%d features × %d documents, %d layers of ranks %s.", m.A[0].Rows, M, len(m.A), strings.Join(ranks, ", "))
	} else {
		page.Summary = fmt.Sprintf("%d features, %d layers of ranks %s. The model keeps no documents' weights (it was trained by streaming), so shares of documents are not shown.", m.A[0].Rows, len(m.A), strings.Join(ranks, ", "))
	}
	if h := m.History; len(h.Loss) > 0 {
		page.Summary += fmt.Sprintf(" Trained %d epochs; final loss %.6g, relative error ‖X − A1⋯A%d·S%d‖/‖X‖ = %.4f.", len(h.Loss), h.Loss[len(h.Loss)-1], len(m.A), len(m.A), h.RelError[len(h.RelError)-1])
	}
	page.Tree = tree(layers, edges)
	var err error
	if page.Heatmaps, err = heatmaps(m, S); err != nil {
		return err
	}
	page.Curve = curve(m.History)
	if in.Labels != nil {
		if err := labelSections(&page.Accuracy, &page.Confusion, &page.LabelNote, m, S, in); err != nil {
			return err
		}
	}
	return pageTemplate.Execute(w, page)
}

// checkS checks that S, if not nil, is one finite, nonnegative k⁽ˡ⁾ × M
// matrix per layer of m.
func checkS(S []*tensor.Dense, m *neuralnmf.Model) error {
	if S == nil {
		return nil
	}
	if len(S) != len(m.A) {
		return fmt.Errorf("report: %d S matrices for the model's %d layers", len(S), len(m.A))
	}
	for l, s := range S {
		if s == nil || s.Rows != m.A[l].Cols || s.Cols != S[0].Cols || s.Cols == 0 {
			return fmt.Errorf("report: layer %d: S is not %d × M with the same M > 0 as layer 1", l+1, m.A[l].Cols)
		}
		if err := tensor.CheckNonnegative(fmt.Sprintf("report: layer %d's S", l+1), s); err != nil {
			return err
		}
	}
	return nil
}

// shares returns, per topic of layer l (k of them), the share of the
// columns of S[l] whose largest entry is in that row; all-zero columns
// count for no topic. Without S every share is −1 (unknown).
func shares(S []*tensor.Dense, l, k int) []float64 {
	out := make([]float64, k)
	if S == nil {
		for i := range out {
			out[i] = -1
		}
		return out
	}
	s := S[l]
	for j := 0; j < s.Cols; j++ {
		best, arg := 0.0, -1
		for i := 0; i < s.Rows; i++ {
			if v := s.At(i, j); v > best {
				best, arg = v, i
			}
		}
		if arg >= 0 {
			out[arg]++
		}
	}
	for i := range out {
		out[i] /= float64(s.Cols)
	}
	return out
}

// tree draws the hierarchy as SVG: one column of topic boxes per layer,
// edges between consecutive layers with width and opacity by weight.
func tree(layers []layerView, edges []edge) template.HTML {
	const boxW, boxH, gapY, colGap, pad = 250, 54, 12, 120, 20
	rows := 0
	for _, l := range layers {
		rows = max(rows, len(l.Topics))
	}
	height := pad*2 + 20 + rows*(boxH+gapY)
	width := pad*2 + len(layers)*boxW + (len(layers)-1)*colGap
	pos := func(layer, topic int) (x, y int) {
		n := len(layers[layer].Topics)
		off := (rows - n) * (boxH + gapY) / 2
		return pad + layer*(boxW+colGap), pad + 20 + off + topic*(boxH+gapY)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="tree" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="topic hierarchy">`, width, height, width, height)
	for l := range layers {
		x, _ := pos(l, 0)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="hdr">Layer %d (%d topics)</text>`, x, pad+10, l+1, len(layers[l].Topics))
	}
	for _, e := range edges {
		x0, y0 := pos(e.Layer-2, e.From)
		x1, y1 := pos(e.Layer-1, e.To)
		x0 += boxW
		y0 += boxH / 2
		y1 += boxH / 2
		mid := (x0 + x1) / 2
		fmt.Fprintf(&b, `<path d="M%d %d C%d %d %d %d %d %d" stroke="#3b6fb6" stroke-opacity="%.2f" stroke-width="%.1f" fill="none"><title>layer %d topic %d → layer %d topic %d: %.0f%% of the row of A%d</title></path>`,
			x0, y0, mid, y0, mid, y1, x1, y1, 0.25+0.75*e.Weight, 1+9*e.Weight, e.Layer-1, e.From+1, e.Layer, e.To+1, 100*e.Weight, e.Layer)
	}
	for l, lv := range layers {
		for t, tv := range lv.Topics {
			x, y := pos(l, t)
			line1, line2 := splitWords(tv.Words, 34)
			fmt.Fprintf(&b, `<g><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="6" fill="#f4f7fb" stroke="#9fb3cc"/>`, html.EscapeString(tv.WordLine), x, y, boxW, boxH)
			if tv.Share >= 0 {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="4" fill="#3b6fb6"/>`, x, y+boxH-4, float64(boxW)*tv.Share)
				fmt.Fprintf(&b, `<text x="%d" y="%d" class="t">Topic %d · %.0f%% of documents</text>`, x+8, y+16, t+1, 100*tv.Share)
			} else {
				fmt.Fprintf(&b, `<text x="%d" y="%d" class="t">Topic %d</text>`, x+8, y+16, t+1)
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" class="w">%s</text><text x="%d" y="%d" class="w">%s</text></g>`, x+8, y+31, html.EscapeString(line1), x+8, y+45, html.EscapeString(line2))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// splitWords fills two lines of at most width characters with words.
func splitWords(ws []string, width int) (string, string) {
	var lines [2]strings.Builder
	k := 0
	for _, w := range ws {
		n := len([]rune(w))
		if lines[k].Len() > 0 && len([]rune(lines[k].String()))+2+n > width {
			if k == 1 {
				break
			}
			k++
		}
		if lines[k].Len() > 0 {
			lines[k].WriteString(", ")
		}
		if n > width {
			w = string([]rune(w)[:width-1]) + "…"
		}
		lines[k].WriteString(w)
	}
	return lines[0].String(), lines[1].String()
}

type heatmap struct {
	Caption string
	Src     template.URL
}

// maxHeatmapDocs is the most documents whose S is drawn as a heatmap.
const maxHeatmapDocs = 300

// heatmaps draws Aℓ for every layer ℓ ≥ 2 (A1, features × topics, is shown
// as top words instead) and, for at most maxHeatmapDocs documents, the last
// layer's S as PNGs, named as the command line names them (A2 is layer 2's
// A). Each is at most heatmapWidth pixels wide, so that the page shows it
// at its own size and its 12-pixel text stays readable.
func heatmaps(m *neuralnmf.Model, S []*tensor.Dense) ([]heatmap, error) {
	var out []heatmap
	add := func(caption string, p plot.Panel, bar string) error {
		cell := max(1, min(360/p.M.Rows, (heatmapWidth-300)/p.M.Cols))
		img, err := plot.Heatmaps([]plot.Panel{p}, &plot.Options{Title: p.Title, BarLabel: bar, Cell: cell})
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return err
		}
		out = append(out, heatmap{Caption: caption, Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))})
		return nil
	}
	for l := 2; l <= len(m.A); l++ {
		a := m.A[l-1]
		if err := add(fmt.Sprintf("A%d (%d×%d): how the %d topics of layer %d are made of the %d of layer %d", l, a.Rows, a.Cols, a.Cols, l, a.Rows, l-1),
			plot.Panel{Title: fmt.Sprintf("A%d (%d×%d), layer %d -> layer %d", l, a.Rows, a.Cols, l-1, l), M: a, RowLabel: fmt.Sprintf("layer-%d topics", l-1), ColLabel: fmt.Sprintf("layer-%d topics", l)}, "weight"); err != nil {
			return nil, err
		}
	}
	// S is drawn only where a column is still visible.
	L := len(S)
	if L == 0 || S[L-1].Cols > maxHeatmapDocs {
		return out, nil
	}
	s := S[L-1]
	if err := add(fmt.Sprintf("S%d (%d×%d): each document's weights on the %d topics of layer %d", L, s.Rows, s.Cols, s.Rows, L),
		plot.Panel{Title: fmt.Sprintf("S%d (%d×%d), layer %d", L, s.Rows, s.Cols, L), M: s, RowLabel: fmt.Sprintf("layer-%d topics", L), ColLabel: "documents"}, "weight"); err != nil {
		return nil, err
	}
	return out, nil
}

// heatmapWidth bounds a heatmap's width in pixels, below the page's.
const heatmapWidth = 1100

// curve draws the training loss (log scale) and relative error per epoch
// as SVG; empty when the history has fewer than two epochs.
func curve(h neuralnmf.History) template.HTML {
	n := len(h.Loss)
	if n < 2 || len(h.RelError) != n {
		return ""
	}
	const W, H, pad = 640, 220, 48
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="curve" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="training curve">`, W, H, W, H)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`, pad, 10, W-2*pad, H-pad-10)
	series := func(v []float64, logScale bool, color string) (lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		f := func(x float64) float64 {
			if logScale {
				return math.Log10(math.Max(x, 1e-300))
			}
			return x
		}
		for _, x := range v {
			lo, hi = math.Min(lo, f(x)), math.Max(hi, f(x))
		}
		if hi == lo {
			hi = lo + 1
		}
		b.WriteString(`<polyline fill="none" stroke-width="2" stroke="` + color + `" points="`)
		for i, x := range v {
			px := float64(pad) + float64(W-2*pad)*float64(i)/float64(n-1)
			py := 10 + float64(H-pad-10)*(1-(f(x)-lo)/(hi-lo))
			fmt.Fprintf(&b, "%.1f,%.1f ", px, py)
		}
		b.WriteString(`"/>`)
		return lo, hi
	}
	lo, hi := series(h.Loss, true, "#3b6fb6")
	rlo, rhi := series(h.RelError, false, "#d9822b")
	fmt.Fprintf(&b, `<text x="4" y="20" class="ax" fill="#3b6fb6">%.3g</text><text x="4" y="%d" class="ax" fill="#3b6fb6">%.3g</text>`, math.Pow(10, hi), H-pad, math.Pow(10, lo))
	fmt.Fprintf(&b, `<text x="%d" y="20" class="ax" fill="#d9822b">%.4f</text><text x="%d" y="%d" class="ax" fill="#d9822b">%.4f</text>`, W-pad+4, rhi, W-pad+4, H-pad, rlo)
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="ax">epoch 1</text><text x="%d" y="%d" class="ax" text-anchor="end">epoch %d</text>`, pad, H-pad+16, W-pad, H-pad+16, n)
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="ax"><tspan fill="#3b6fb6">■ training loss (log scale, left)</tspan>  <tspan fill="#d9822b">■ relative error (right)</tspan></text>`, pad, H-8)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

type accRow struct {
	Layer    int
	Accuracy string
}

// labelSections fills the accuracy table (a least-squares read-out fitted
// on the labelled columns, per layer, and the model's own classifier) and
// the confusion matrix of the last layer's prediction.
func labelSections(acc *[]accRow, conf *template.HTML, note *string, m *neuralnmf.Model, S []*tensor.Dense, in Input) error {
	classes, err := classify.CheckLabels(in.Labels)
	if err != nil {
		return fmt.Errorf("report: Labels: %w", err)
	}
	if in.ClassNames != nil && len(in.ClassNames) != classes {
		return fmt.Errorf("report: %d class names for %d classes", len(in.ClassNames), classes)
	}
	var pred []int
	for l, s := range S {
		p, err := classify.Readout(s, in.Labels, classes)
		if err != nil {
			return fmt.Errorf("report: layer %d read-out: %w", l+1, err)
		}
		*acc = append(*acc, accRow{l + 1, fmt.Sprintf("%.3f", classify.Accuracy(p, in.Labels))})
		pred = p
	}
	*note = "Per layer: a least-squares read-out B = Y·S† fitted on the labelled documents and scored on the same documents (training accuracy)."
	if m.B != nil && m.B.Rows == classes && m.BX != nil {
		*note += " The model's classifier also reads the documents' words (BX), which the report is not given: predict scores it."
	} else if m.B != nil && m.B.Rows == classes {
		pred, _, _ = m.Scores(nil, S)
		*acc = append(*acc, accRow{0, fmt.Sprintf("%.3f", classify.Accuracy(pred, in.Labels))})
		*note += " Model's classifier: the B trained or chosen with the model, argmax(B·Sℓ), ℓ the layer it reads."
	}
	names := in.ClassNames
	if names == nil && len(m.ClassNames) == classes {
		names = m.ClassNames
	}
	if names == nil {
		names = make([]string, classes)
		for c := range names {
			names[c] = fmt.Sprintf("class %d", c)
		}
	}
	cm := make([][]int, classes)
	for c := range cm {
		cm[c] = make([]int, classes)
	}
	for j, l := range in.Labels {
		if l >= 0 {
			cm[l][pred[j]]++
		}
	}
	var b strings.Builder
	// Columns are headed by class numbers (the names are in the rows and in
	// each header's tooltip), so that 20 classes fit the page's width.
	b.WriteString(`<table class="confusion"><tr><th>true \ predicted</th>`)
	for c, n := range names {
		fmt.Fprintf(&b, `<th title="%s">%d</th>`, html.EscapeString(n), c)
	}
	b.WriteString("</tr>")
	for c, row := range cm {
		total := 0
		for _, v := range row {
			total += v
		}
		fmt.Fprintf(&b, `<tr><th class="name">%d %s</th>`, c, html.EscapeString(names[c]))
		for p, v := range row {
			f := 0.0
			if total > 0 {
				f = float64(v) / float64(total)
			}
			cls := ""
			if p == c {
				cls = ` class="diag"`
			}
			fmt.Fprintf(&b, `<td%s style="background:rgba(59,111,182,%.2f)">%d</td>`, cls, 0.85*f, v)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	*conf = template.HTML(b.String())
	return nil
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"npmi": func(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
},
	"mul100": func(f float64) float64 { return 100 * f }}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
p.summary { color: #555; }
.scroll { overflow-x: auto; }
svg text.hdr { font: bold 14px sans-serif; fill: #222; }
svg text.t { font: bold 12px sans-serif; fill: #222; }
svg text.w { font: 12px sans-serif; fill: #444; }
svg text.ax { font: 12px sans-serif; fill: #444; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: .3em .6em; text-align: left; vertical-align: top; }
td.num, table.confusion td { text-align: right; }
table.confusion td.diag { font-weight: bold; }
table.confusion th, table.confusion td { padding: .15em .35em; font-size: 13px; }
table.confusion th.name { max-width: 16em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
figure { margin: 1em 0; }
figure { overflow-x: auto; }
figure img { max-width: none; border: 1px solid #eee; }
figcaption { color: #555; font-size: .9em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="summary">{{.Summary}}</p>

<h2>Topic hierarchy</h2>
<p>Each box is a topic: its top words (the largest entries of the topic's column of A1⋯Aℓ) and the share of documents whose largest weight is on it (the bar). A line joins a topic to the next layer's topics it is made of, drawn for every share of at least 5 % of its row of Aℓ; thicker is stronger. Hover for details.</p>
<div class="scroll">{{.Tree}}</div>

<h2>Topics</h2>
{{range $l := .Layers}}
<h3>Layer {{.Index}}</h3>
{{if .Quality}}<p>NPMI {{npmi .NPMI}} (the mean of the topics': the coherence of each topic's top words by how often they occur in the same documents, −1 to 1), topic diversity {{printf "%.3f" .Diversity}} (the share of distinct words among the topics' top 25).</p>
{{end}}<table>
<tr><th>topic</th><th>documents</th>{{if .Quality}}<th>NPMI</th><th>from its largest parent</th>{{end}}<th>top words</th></tr>
{{range $t := .Topics}}<tr><td class="num">{{$t.Index}}</td><td class="num">{{if ge $t.Share 0.0}}{{printf "%.1f" (mul100 $t.Share)}} %{{else}}—{{end}}</td>{{if $l.Quality}}<td class="num">{{npmi $t.NPMI}}</td><td class="num">{{$t.Parent}}</td>{{end}}<td>{{$t.WordLine}}</td></tr>
{{end}}</table>
{{end}}

<h2>Heatmaps</h2>
{{range .Heatmaps}}<figure><img src="{{.Src}}" alt="{{.Caption}}"><figcaption>{{.Caption}}</figcaption></figure>
{{end}}

{{if .Curve}}<h2>Training</h2>
<div class="scroll">{{.Curve}}</div>
{{end}}

{{if .Accuracy}}<h2>Labels</h2>
<p>{{.LabelNote}}</p>
<table>
<tr><th>layer</th><th>accuracy</th></tr>
{{range .Accuracy}}<tr><td>{{if .Layer}}{{.Layer}}{{else}}model's classifier{{end}}</td><td class="num">{{.Accuracy}}</td></tr>
{{end}}</table>
<h3>Confusion matrix of the last prediction above (rows: true class; shading: share of the row)</h3>
<div class="scroll">{{.Confusion}}</div>
{{end}}
<p class="summary">Made by neuralnmf report.</p>
</body>
</html>
`))

// qualityFits reports whether q has a layer for each of m's, with a topic
// for each of the layer's.
func qualityFits(q []quality.Layer, m *neuralnmf.Model) bool {
	if len(q) != len(m.A) {
		return false
	}
	for l, a := range m.A {
		if len(q[l].Topics) != a.Cols {
			return false
		}
	}
	return true
}
