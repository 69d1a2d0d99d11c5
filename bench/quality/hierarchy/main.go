// Command hierarchy measures a default two-layer fit's hierarchy against
// hierarchical NMF at the same ranks, as issue 69 asks (no default is
// chosen from it): for each seed, the default fit (ranks 20,10), HNMF
// (NMF(20) by HALS from a random start of that seed, then NMF(10) of its
// loadings, broad topics A⁽⁰⁾A⁽¹⁾) and the flat NMF(20) of the same fit,
// each scored by package quality on the corpus's documents: NPMI of each
// layer, specialization, and hierarchical affinity (children and the
// others). It prints every seed and the paired differences (ours − HNMF on
// the broad layer, ours − flat NMF(20) on the fine layer) as mean ± standard
// error over the seeds.
//
//	go run ./bench/quality/hierarchy -docs C.jsonl[.gz] [-newsgroups] [-seeds 1-10] [-ranks 20,10]
//
// -init, -loss, -start, -ablate and -epochs measure variants of the
// default (docs/quality.md says what each showed).
//
// sklearn_hnmf.py, beside it, pairs a run's log with scikit-learn's own
// HNMF (its defaults) scored independently in numpy. The logs of both are
// in results/bench/quality/hierarchy/; docs/quality.md reads them.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/quality"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

// ranks are the two layers' ranks, -ranks's (20,10 unless given).
var ranks = []int{20, 10}

// scores are one model's measures.
type scores struct {
	npmi, spec [2]float64
	affC, affN float64
}

func measure(x *tensor.Sparse, a []*tensor.Dense) scores {
	q, err := quality.Measure(x, a, nil)
	check(err)
	var s scores
	for l := range 2 {
		s.npmi[l], s.spec[l] = q[l].NPMI, q[l].Specialization
	}
	s.affC, s.affN = q[1].Affinity.Children, q[1].Affinity.NonChildren
	return s
}

func (s scores) String() string {
	return fmt.Sprintf("NPMI %.3f %.3f, specialization %.3f %.3f, affinity %.3f vs %.3f", s.npmi[0], s.npmi[1], s.spec[0], s.spec[1], s.affC, s.affN)
}

func main() {
	docs := flag.String("docs", "", "JSON Lines documents (field text)")
	news := flag.Bool("newsgroups", false, "the 20 Newsgroups cleaning before vectorising")
	seedsFlag := flag.String("seeds", "1-10", "seeds: a range a-b or a comma-separated list")
	initFlag := flag.String("init", "", "our fit's start instead of the default: hnmf, nndsvd, hnmf-best or random")
	ablate := flag.Bool("ablate", false, "also HNMFs that differ from the comparator: the fine layer from NNDSVDa (as our start), the loadings scaled by their topics' ℓ₂ norms before the broad layer (as our start) or ℓ₁ norms, and combinations")
	lossFlag := flag.String("loss", "", "our fit's loss instead of the default reconstruction ‖X − A⁽⁰⁾A⁽¹⁾S⁽¹⁾‖²: energy, the per-layer terms ‖X − A⁽⁰⁾S⁽⁰⁾‖² + ‖S⁽⁰⁾ − A⁽¹⁾S⁽¹⁾‖² (neuralnmf.Energy, fit -loss energy)")
	epochsFlag := flag.String("epochs", "", "also the default fit stopped at these epochs (a comma-separated list, such as 1,10,50,200: 1 is its start, measured after one epoch), to see what training does to each layer")
	startFlag := flag.String("start", "", "our fit's start built here instead of by -init: hnmf, the comparator's HNMF itself; hals, HNMF as the library's NNDSVDa start makes it (HALS with extrapolation, each layer to scikit-learn's convergence test) but from a random start of seed+1000 and on raw loadings, as a start the library could make independently of the comparator's draw; nndsvd-l1, nndsvd-l2, nndsvd-rows or nndsvd-raw, the default's fine layer (NMF(20) by HALS from NNDSVDa) with its topics scaled to unit ℓ₁ or ℓ₂ norm, its rows of S to unit ℓ₂ norm, or left raw, and a broad layer by HALS from a random start of the seed on its loadings (as the comparator's)")
	ranksFlag := flag.String("ranks", "20,10", "the two layers' ranks, the finer first")
	flag.Parse()
	seeds := parseSeeds(*seedsFlag)
	if ranks = parseList(*ranksFlag); len(ranks) != 2 || ranks[1] >= ranks[0] || ranks[1] < 1 {
		log.Fatalf("-ranks %q: want two decreasing positive ranks, such as 20,10", *ranksFlag)
	}
	loss := neuralnmf.Reconstruction
	switch *lossFlag {
	case "":
	case "energy":
		loss = neuralnmf.Energy
	default:
		log.Fatalf("-loss %q: want energy", *lossFlag)
	}
	inits := map[string]neuralnmf.Init{"": neuralnmf.DefaultInit, "hnmf": neuralnmf.HNMFInit, "nndsvd": neuralnmf.NNDSVDInit, "hnmf-best": neuralnmf.HNMFBestInit, "random": neuralnmf.RandomInit}
	init, ok := inits[*initFlag]
	if !ok {
		log.Fatalf("-init %q: want hnmf, nndsvd, hnmf-best or random", *initFlag)
	}
	_, x, err := text.Fit(text.Source{Path: *docs}.Texts(), text.Options{StopWords: text.EnglishStopWords(), MinDF: text.Docs(2), MaxDF: text.Share(0.5), Newsgroups: *news})
	check(err)
	fmt.Printf("# %s: %d words × %d documents (stop words, min-df 2, max-df 0.5), ranks %v, seeds %v, our start %q (empty: the default), -start %q, -loss %q\n", *docs, x.Rows, x.Cols, ranks, seeds, *initFlag, *startFlag, *lossFlag)
	var runs []seedRun
	for _, seed := range seeds {
		// The comparator first: -start hnmf starts from it.
		fine, err := ssnmf.NMFSparse(x, ranks[0], &ssnmf.Options{Seed: seed, Solver: ssnmf.HALS})
		check(err)
		broad := broadLayer(fine.S, seed)
		var nn *ssnmf.Factors // the default's fine layer (-start nndsvd-*, -ablate)
		if *ablate || strings.HasPrefix(*startFlag, "nndsvd") {
			nn, err = ssnmf.NMFSparse(x, ranks[0], &ssnmf.Options{Seed: seed, Solver: ssnmf.HALS, Start: ssnmf.NNDSVDAStart, Stop: ssnmf.StopViolation, Tol: 1e-4, Extrapolate: true})
			check(err)
		}
		cfg := neuralnmf.Config{Ranks: ranks, Seed: seed, Init: init, Loss: loss}
		if *startFlag != "" {
			cfg.Init, cfg.InitA = neuralnmf.GivenInit, builtStart(*startFlag, x, seed, fine, broad, nn)
		}
		def, err := neuralnmf.Train(x, cfg)
		check(err)
		ours := measure(x, def.A)
		h := measure(x, []*tensor.Dense{fine.A, broad})
		flat, err := quality.Measure(x, []*tensor.Dense{fine.A}, nil)
		check(err)
		fmt.Printf("seed %d\n  ours: %v (%d epochs)\n  HNMF: %v\n  flat NMF(%d): NPMI %.3f\n", seed, ours, len(def.History.Loss), h, ranks[0], flat[0].NPMI)
		r := seedRun{ours: ours, h: h, flatNPMI: flat[0].NPMI, ourErr: forwardErr(x, def.A), hErr: forwardErr(x, []*tensor.Dense{fine.A, broad})}
		fmt.Printf("  relative error through the broad layer (S by NNLS from X): ours %.6f, HNMF %.6f\n", r.ourErr, r.hErr)
		runs = append(runs, r)
		if *ablate {
			for _, v := range []struct {
				name string
				f    *ssnmf.Factors
				norm float64 // scale the topics to unit ℓ_norm first (0: not)
			}{{"random fine, unit topics", fine, 2}, {"NNDSVDa fine", nn, 0}, {"NNDSVDa fine, unit topics", nn, 2},
				{"random fine, unit l1 topics", fine, 1}, {"NNDSVDa fine, unit l1 topics", nn, 1}} {
				a, s := v.f.A, v.f.S
				if v.norm > 0 {
					a, s = unitTopics(a, s, v.norm)
				}
				fmt.Printf("  HNMF, %s: %v\n", v.name, measure(x, []*tensor.Dense{a, broadLayer(s, seed)}))
			}
		}
		for _, e := range parseList(*epochsFlag) {
			ce := cfg // the same start (-init or -start), stopped at e epochs
			ce.Epochs, ce.Tol = e, -1
			m, err := neuralnmf.Train(x, ce)
			check(err)
			fmt.Printf("  ours after %d epoch(s): %v\n", e, measure(x, m.A))
		}
	}
	printSummary(runs)
}

// seedRun is one seed's measures: ours, HNMF's, the flat NMF's fine NPMI,
// and each model's relative error through the broad layer.
type seedRun struct {
	ours, h      scores
	flatNPMI     float64
	ourErr, hErr float64
}

// printSummary prints the means over the seeds and the paired differences,
// each ± its standard error.
func printSummary(runs []seedRun) {
	of := func(f func(r seedRun) float64) string {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		return meanSE(v)
	}
	fmt.Printf("means over %d seeds (± standard error):\n", len(runs))
	fmt.Printf("  broad NPMI: ours %s, HNMF %s\n", of(func(r seedRun) float64 { return r.ours.npmi[1] }), of(func(r seedRun) float64 { return r.h.npmi[1] }))
	fmt.Printf("  fine NPMI: ours %s, flat NMF(%d) %s\n", of(func(r seedRun) float64 { return r.ours.npmi[0] }), ranks[0], of(func(r seedRun) float64 { return r.flatNPMI }))
	fmt.Printf("  broad specialization: ours %s, HNMF %s\n", of(func(r seedRun) float64 { return r.ours.spec[1] }), of(func(r seedRun) float64 { return r.h.spec[1] }))
	fmt.Printf("paired over %d seeds (mean ± standard error):\n", len(runs))
	fmt.Printf("  broad NPMI, ours − HNMF:               %s\n", of(func(r seedRun) float64 { return r.ours.npmi[1] - r.h.npmi[1] }))
	fmt.Printf("  fine NPMI, ours − flat NMF(%d):         %s\n", ranks[0], of(func(r seedRun) float64 { return r.ours.npmi[0] - r.flatNPMI }))
	fmt.Printf("  broad specialization, ours − HNMF:     %s\n", of(func(r seedRun) float64 { return r.ours.spec[1] - r.h.spec[1] }))
	fmt.Printf("  affinity children − others, ours:      %s\n", of(func(r seedRun) float64 { return r.ours.affC - r.ours.affN }))
	fmt.Printf("  affinity children − others, HNMF:      %s\n", of(func(r seedRun) float64 { return r.h.affC - r.h.affN }))
	fmt.Printf("  relative error, ours − HNMF:           %s\n", of(func(r seedRun) float64 { return r.ourErr - r.hErr }))
}

// forwardErr is ‖X − A⁽⁰⁾A⁽¹⁾S⁽¹⁾‖/‖X‖ with the S by nonnegative least
// squares from X (the model's forward pass), what the paper's loss
// minimises.
func forwardErr(x *tensor.Sparse, a []*tensor.Dense) float64 {
	sh, err := neuralnmf.EvalShare(a, x, 0)
	check(err)
	return math.Sqrt(sh.Loss / sh.SqNorm)
}

// broadLayer is the comparator's broad layer on loadings s: NMF(10) by
// HALS from a random start of the seed.
func broadLayer(s *tensor.Dense, seed uint64) *tensor.Dense {
	b, err := ssnmf.NMF(s, ranks[1], &ssnmf.Options{Seed: seed, Solver: ssnmf.HALS})
	check(err)
	return b.A
}

// builtStart is -start's: the comparator's HNMF (fine, broad) itself
// (hnmf); HNMF of x as the library's NNDSVDa start makes it but from a
// random start of seed+1000 on raw loadings (hals); or the default's fine
// layer nn with its topics scaled to unit ℓ₁ or ℓ₂ norm (nndsvd-l1,
// nndsvd-l2), its rows of S to unit ℓ₂ norm (nndsvd-rows) or neither
// (nndsvd-raw), and a broad layer as the comparator's on its loadings.
func builtStart(start string, x *tensor.Sparse, seed uint64, fine *ssnmf.Factors, broad *tensor.Dense, nn *ssnmf.Factors) []*tensor.Dense {
	switch start {
	case "hnmf":
		return []*tensor.Dense{fine.A, broad}
	case "hals":
		h, err := ssnmf.HNMFSparse(x, ranks, nil, &ssnmf.Options{Seed: seed + 1000, Solver: ssnmf.HALS, Stop: ssnmf.StopViolation, Tol: 1e-4, Extrapolate: true})
		check(err)
		return h.A
	}
	norms := map[string]float64{"nndsvd-l1": 1, "nndsvd-l2": 2, "nndsvd-raw": 0, "nndsvd-rows": -2}
	p, ok := norms[start]
	if !ok {
		log.Fatalf("-start %q: want hnmf, hals, nndsvd-l1, nndsvd-l2, nndsvd-raw or nndsvd-rows", start)
	}
	a, s := nn.A, nn.S
	switch {
	case p > 0:
		a, s = unitTopics(a, s, p)
	case p < 0: // rows of S of unit ℓ₂ norm: the topics carry the scale
		st, at := unitTopics(s.T(), a.T(), -p)
		a, s = at.T(), st.T()
	}
	return []*tensor.Dense{a, broadLayer(s, seed)}
}

// unitTopics returns copies of a with columns of unit ℓ_p norm (p 1 or 2)
// and s with its rows scaled by the columns' norms (a·s unchanged).
func unitTopics(a, s *tensor.Dense, p float64) (*tensor.Dense, *tensor.Dense) {
	a, s = a.Clone(), s.Clone()
	for j := 0; j < a.Cols; j++ {
		n := 0.0
		for i := 0; i < a.Rows; i++ {
			n += math.Pow(a.At(i, j), p)
		}
		n = math.Pow(n, 1/p)
		if n == 0 {
			continue
		}
		for i := 0; i < a.Rows; i++ {
			a.Set(i, j, a.At(i, j)/n)
		}
		row := s.Row(j)
		for i := range row {
			row[i] *= n
		}
	}
	return a, s
}

func meanSE(v []float64) string {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	se := math.NaN()
	if len(v) > 1 {
		se = math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
	}
	return fmt.Sprintf("%+.4f ± %.4f", m, se)
}

func parseSeeds(s string) []uint64 {
	var out []uint64
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, err1 := strconv.ParseUint(a, 10, 64)
		hi, err2 := strconv.ParseUint(b, 10, 64)
		if err1 != nil || err2 != nil || hi < lo {
			log.Fatalf("-seeds %q: want a-b or a list", s)
		}
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
		return out
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		check(err)
		out = append(out, v)
	}
	return out
}

func parseList(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		check(err)
		out = append(out, v)
	}
	return out
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
