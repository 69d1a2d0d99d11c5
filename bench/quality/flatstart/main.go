// Command flatstart is an exploratory measurement for issue 54 (not a
// choice of default): is a hierarchy's broad layer more coherent when its
// start is a flat NMF(k₂), expressed in the fine topics, than when it is
// HNMF's (the default start)? For each seed it fits, on one corpus
// vectorised as bench/quality/compare.sh does, the default two-layer fit,
// and a fit from A⁽⁰⁾ = NMF(k₁)'s topics and A⁽¹⁾ = the NNLS coefficients
// of NMF(k₂)'s topics on them, and prints each layer's NPMI (top 10 words)
// beside the flat NMF(k₂)'s, with the relative errors; and a third fit
// from the default model's A⁽⁰⁾ with A⁽¹⁾ the NNLS coefficients of NMF(k₂)'s
// topics on it.
//
//	go run ./bench/quality/flatstart -docs C.jsonl [-ranks 20,10] [-seeds 1,2,3] [-hals] [-newsgroups]
//
// The logs of its runs, which the comments here and docs/ cite by name,
// are in results/bench/quality/flatstart/.
package main

import (
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"
	"time"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

func main() {
	docs := flag.String("docs", "", "JSON Lines documents (field text)")
	ranksFlag := flag.String("ranks", "20,10", "two ranks")
	seedsFlag := flag.String("seeds", "1,2,3", "seeds")
	news := flag.Bool("newsgroups", false, "the 20 Newsgroups cleaning (headers, signatures, quotes, digits) before vectorising")
	hals := flag.Bool("hals", false, "flat NMFs by HALS from NNDSVDa (scikit-learn's defaults) instead of multiplicative updates from random starts")
	flag.Parse()
	var ranks []int
	for _, f := range strings.Split(*ranksFlag, ",") {
		k, err := strconv.Atoi(f)
		if err != nil {
			log.Fatal(err)
		}
		ranks = append(ranks, k)
	}
	_, x, err := text.Fit(text.Source{Path: *docs}.Texts(), text.Options{StopWords: text.EnglishStopWords(), MinDF: text.Docs(5), MaxDF: text.Share(0.5), Newsgroups: *news})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("# %s: %d words × %d documents, ranks %v, HALS from NNDSVDa: %v\n", *docs, x.Rows, x.Cols, ranks, *hals)
	npmi := func(a []*tensor.Dense) []float64 {
		q, err := quality.Measure(x, a, nil)
		if err != nil {
			log.Fatal(err)
		}
		out := make([]float64, len(q))
		for i, l := range q {
			out[i] = l.NPMI
		}
		return out
	}
	for _, sf := range strings.Split(*seedsFlag, ",") {
		seed, _ := strconv.ParseUint(sf, 10, 64)
		t0 := time.Now()
		def, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed})
		tDef := time.Since(t0)
		if err != nil {
			log.Fatal(err)
		}
		opt := &ssnmf.Options{Seed: seed}
		if *hals {
			opt.Solver, opt.Start = ssnmf.HALS, ssnmf.NNDSVDAStart
		}
		f1, err := ssnmf.NMFSparse(x, ranks[0], opt)
		if err != nil {
			log.Fatal(err)
		}
		tf := time.Now()
		f2, err := ssnmf.NMFSparse(x, ranks[1], opt)
		tFlat := time.Since(tf) // counted in the third fit's time, which needs it
		if err != nil {
			log.Fatal(err)
		}
		r, err := nnls.Solve(f1.A, f2.A, nil)
		if err != nil {
			log.Fatal(err)
		}
		start := []*tensor.Dense{f1.A, r.S}
		flat, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed, Init: neuralnmf.GivenInit, InitA: start})
		if err != nil {
			log.Fatal(err)
		}
		// The default's A⁽⁰⁾ kept, A⁽¹⁾ the flat NMF(k₂)'s projection on it
		// (timed from the flat NMF(k₂), which it needs, to its trained model).
		t1 := time.Now()
		r2, err := nnls.Solve(def.A[0], f2.A, nil)
		if err != nil {
			log.Fatal(err)
		}
		hyb, err := neuralnmf.Train(x, neuralnmf.Config{Ranks: ranks, Seed: seed, Init: neuralnmf.GivenInit, InitA: []*tensor.Dense{def.A[0], r2.S}})
		if err != nil {
			log.Fatal(err)
		}
		tHyb := tFlat + time.Since(t1)
		fmt.Printf("seed %d: default %v (rel. error %.5f); flat start untrained %v; flat start trained %v (rel. error %.5f); default A0 with flat A1, trained %v (rel. error %.5f); flat NMF(%d) %.3f; time: default %.2f s, the third fit after it %.2f s\n",
			seed, fmtv(npmi(def.A)), def.History.FinalRelError, fmtv(npmi(start)), fmtv(npmi(flat.A)), flat.History.FinalRelError,
			fmtv(npmi(hyb.A)), hyb.History.FinalRelError, ranks[1], npmi([]*tensor.Dense{f2.A})[0], tDef.Seconds(), tHyb.Seconds())
	}
}

func fmtv(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.3f", x)
	}
	return "[" + strings.Join(s, " ") + "]"
}
