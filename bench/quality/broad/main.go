// Command broad is an exploratory measurement for issue 54 (no default is
// chosen from it): why is a two-layer fit's broad layer less coherent than
// a flat NMF of the same K on some corpora, and what moves it? For each
// seed it fits the default two-layer model on one corpus (vectorised as
// bench/quality/compare.sh does) and prints each layer's NPMI (top 10
// words, co-occurrence in the corpus's documents) and relative error
// beside:
//
//   - each broad topic's dominant child alone (the fine topic of largest
//     mass in it: a diagnostic, not a model) and the dominant child's
//     share of the broad topic's mass;
//   - A⁽¹⁾ pruned to each fine topic's p largest parents (p = 1: a tree),
//     untrained and trained on from there (GivenInit);
//   - A⁽¹⁾ pruned to each broad topic's c largest children by mass,
//     untrained;
//   - the flat NMF(k₂) by HALS from NNDSVDa;
//   - with -slow: the Energy loss (every layer's reconstruction), and a
//     top-down start (the flat NMF(k₂)'s documents of each broad topic
//     split by an NMF(2), A⁽¹⁾ the NNLS coefficients of the flat topics on
//     the children), trained.
//
// "error" is ‖X − A⁽⁰⁾A⁽¹⁾S‖/‖X‖ with S = NNLS(A⁽⁰⁾A⁽¹⁾, X) (the best S for
// those topics), so that pruned and unpruned A⁽¹⁾ compare; "model error"
// is the trained model's own (S⁽¹⁾ through the NNLS layers).
//
//	go run ./bench/quality/broad -docs C.jsonl [-seeds 1,2,3] [-newsgroups] [-slow]
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/bench/quality/broad/.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

var ranks = []int{20, 10}

func main() {
	docs := flag.String("docs", "", "JSON Lines documents (field text)")
	seedsFlag := flag.String("seeds", "1,2,3", "seeds")
	news := flag.Bool("newsgroups", false, "the 20 Newsgroups cleaning before vectorising")
	slow := flag.Bool("slow", false, "also the Energy loss and the top-down start")
	flag.Parse()
	_, x, err := text.Fit(text.Source{Path: *docs}.Texts(), text.Options{StopWords: text.EnglishStopWords(), MinDF: text.Docs(5), MaxDF: text.Share(0.5), Newsgroups: *news})
	check(err)
	co := quality.NewCooccurrence(x)
	npmi := func(a ...*tensor.Dense) string {
		q, err := quality.Measure(x, a, nil)
		check(err)
		s := ""
		for _, l := range q {
			s += fmt.Sprintf(" %.3f", l.NPMI)
		}
		return "[" + s[1:] + "]"
	}
	relErr := func(a0, a1 *tensor.Dense) float64 {
		w := tensor.MatMul(false, false, a0, a1)
		r, err := nnls.SolveSparse(w, x, nil)
		check(err)
		return math.Sqrt(x.SqDist(w, r.S) / x.SqNorm())
	}
	fmt.Printf("# %s: %d words × %d documents, ranks %v\n", *docs, x.Rows, x.Cols, ranks)
	for _, sf := range strings.Split(*seedsFlag, ",") {
		seed, err := strconv.ParseUint(sf, 10, 64)
		check(err)
		def, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed})
		check(err)
		a0, a1 := def.A[0], def.A[1]
		fmt.Printf("seed %d: default %s, error %.5f, model error %.5f\n", seed, npmi(def.A...), relErr(a0, a1), def.History.FinalRelError)
		mass := make([]float64, a0.Cols) // each fine topic's mass in word space
		for i := 0; i < a0.Rows; i++ {
			for j := range mass {
				mass[j] += a0.At(i, j)
			}
		}
		tops := neuralnmf.TopRows(a0, 10)
		var dom float64
		var shares []string
		for c := 0; c < a1.Cols; c++ {
			best, bj, tot := -1.0, 0, 0.0
			for j := 0; j < a1.Rows; j++ {
				v := a1.At(j, c) * mass[j]
				tot += v
				if v > best {
					best, bj = v, j
				}
			}
			shares = append(shares, fmt.Sprintf("%.2f", best/tot))
			dom += co.NPMI(tops[bj])
		}
		fmt.Printf("  dominant child alone: layer 2 %.3f; its shares %s\n", dom/float64(a1.Cols), strings.Join(shares, " "))
		for _, p := range []int{1, 2} {
			t := keep(a1, p, func(j, c int) float64 { return a1.At(j, c) }, true)
			tr, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{a0, t}})
			check(err)
			fmt.Printf("  A1 kept to each fine topic's %d largest parent(s): untrained %s, error %.5f; trained %s, error %.5f, model error %.5f\n",
				p, npmi(a0, t), relErr(a0, t), npmi(tr.A...), relErr(tr.A[0], tr.A[1]), tr.History.FinalRelError)
		}
		for _, c := range []int{1, 2, 3, 4} {
			t := keep(a1, c, func(j, c int) float64 { return a1.At(j, c) * mass[j] }, false)
			fmt.Printf("  A1 kept to each broad topic's %d largest children: untrained %s, error %.5f\n", c, npmi(a0, t), relErr(a0, t))
		}
		flat, err := ssnmf.NMFSparse(x, ranks[1], &ssnmf.Options{Seed: seed, Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart})
		check(err)
		fmt.Printf("  flat NMF(%d) %s, error %.5f\n", ranks[1], npmi(flat.A), math.Sqrt(x.SqDist(flat.A, flat.S)/x.SqNorm()))
		if !*slow {
			continue
		}
		en, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed, Loss: neuralnmf.Energy})
		check(err)
		fmt.Printf("  Energy loss %s, error %.5f, model error %.5f\n", npmi(en.A...), relErr(en.A[0], en.A[1]), en.History.FinalRelError)
		st := topDown(x, flat, seed)
		td, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed, Init: neuralnmf.GivenInit, InitA: st})
		check(err)
		fmt.Printf("  top-down start: untrained %s; trained %s, error %.5f, model error %.5f\n", npmi(st...), npmi(td.A...), relErr(td.A[0], td.A[1]), td.History.FinalRelError)
	}
}

// keep returns a copy of a1 with, in each row (rows true: each fine
// topic's parents) or each column (each broad topic's children), only the
// n entries of largest weight(j, c).
func keep(a1 *tensor.Dense, n int, weight func(j, c int) float64, rows bool) *tensor.Dense {
	t := tensor.New(a1.Rows, a1.Cols)
	outer, inner := a1.Cols, a1.Rows
	if rows {
		outer, inner = a1.Rows, a1.Cols
	}
	at := func(o, i int) (int, int) {
		if rows {
			return o, i
		}
		return i, o
	}
	for o := 0; o < outer; o++ {
		idx := make([]int, inner)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(p, q int) bool { return weight(at(o, idx[p])) > weight(at(o, idx[q])) })
		for _, i := range idx[:min(n, inner)] {
			j, c := at(o, i)
			t.Set(j, c, a1.At(j, c))
		}
	}
	return t
}

// topDown splits each broad topic of flat (by the documents whose largest
// loading it is) into children by an NMF, k₁/k₂ children each, and returns
// the children (unit columns) and the NNLS coefficients of the flat topics
// on them.
func topDown(x *tensor.Sparse, flat *ssnmf.Factors, seed uint64) []*tensor.Dense {
	k2, per := ranks[1], ranks[0]/ranks[1]
	groups := make([][]int, k2)
	for j := 0; j < x.Cols; j++ {
		best, bp := -1.0, 0
		for p := 0; p < k2; p++ {
			if v := flat.S.At(p, j); v > best {
				best, bp = v, p
			}
		}
		groups[bp] = append(groups[bp], j)
	}
	a0 := tensor.New(x.Rows, ranks[0])
	col := 0
	for p := 0; p < k2; p++ {
		var children *tensor.Dense
		if len(groups[p]) >= 2*per {
			f, err := ssnmf.NMFSparse(x.SelectColumns(groups[p]), per, &ssnmf.Options{Seed: seed, Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart})
			check(err)
			children = f.A
		}
		for c := 0; c < per; c++ {
			nrm := 0.0
			for i := 0; i < x.Rows; i++ {
				v := flat.A.At(i, p) // too few documents: the parent itself
				if children != nil {
					v = children.At(i, c)
				}
				a0.Set(i, col, v)
				nrm += v * v
			}
			for i := 0; i < x.Rows && nrm > 0; i++ {
				a0.Set(i, col, a0.At(i, col)/math.Sqrt(nrm))
			}
			col++
		}
	}
	r, err := nnls.Solve(a0, flat.A, nil)
	check(err)
	return []*tensor.Dense{a0, r.S}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
