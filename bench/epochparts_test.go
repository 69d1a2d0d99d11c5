package bench

import (
	"fmt"
	"testing"

	"github.com/neuralnmf/neuralnmf/nnls"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/paper/news20"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// BenchmarkEpochParts times the parts of the first layer's share of an
// epoch apart, to show where an epoch's time goes: the factorisation of
// A⁽⁰⁾ (nnls.NewFactor), the layer's solve with AᵀX kept (nnls.SolveData,
// warm from its own supports, the factorisation included), its backward
// pass with the loss's terms (BackwardTerm), and one Adam step with the
// trainer's saving of A and its gradient (optim.Adam.StepSaving), at
// 500×1000 and 2000×2000 (BenchmarkEpoch's X and first ranks) and on the
// 20 Newsgroups matrix (rank 10; skipped without ../shared/data/20news).
//
//	go test -run '^$' -bench EpochParts -count 3 ./bench/
func BenchmarkEpochParts(b *testing.B) {
	for _, sh := range epochShapes[1:] { // 500×1000 and 2000×2000
		x, a0 := epochData(sh.n, sh.m, sh.ranks)
		dense, err := nnls.NewData(x)
		if err != nil {
			b.Fatal(err)
		}
		parts(b, fmt.Sprintf("%dx%d", sh.n, sh.m), a0[0], dense)
	}
	d, err := news20.Load("../../shared/data/20news")
	if err != nil {
		b.Logf("20 Newsgroups data not available: %v", err)
		return
	}
	sparse, err := nnls.NewSparseData(d.X.WithRows())
	if err != nil {
		b.Fatal(err)
	}
	parts(b, "news20", tensor.Uniform(d.X.Rows, 10, 0, 1, tensor.NewRand(7)), sparse)
}

func parts(b *testing.B, name string, a *tensor.Dense, x *nnls.Data) {
	res, err := nnls.SolveData(a, x, &nnls.Options{AtX: true})
	if err != nil {
		b.Fatal(err)
	}
	rng := tensor.NewRand(3)
	gs := tensor.Uniform(a.Cols, res.S.Cols, -1, 1, rng)
	ga := tensor.New(a.Rows, a.Cols)
	mkk := tensor.Uniform(a.Cols, a.Cols, -1, 1, rng) // the loss's A·(H·Hᵀ) term
	b.Run(name+"/factor", func(b *testing.B) {
		for b.Loop() {
			if _, err := nnls.NewFactor(a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/solve", func(b *testing.B) {
		for b.Loop() {
			if _, err := nnls.SolveData(a, x, &nnls.Options{AtX: true, Warm: res.Support}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/backward", func(b *testing.B) {
		for b.Loop() {
			term := nnls.Term{H: gs, C: -2, M: mkk}
			if xd := x.Dense(); xd != nil {
				err = res.BackwardTerm(a, xd, gs, ga, nil, term, 0)
			} else {
				err = res.BackwardSparseTerm(a, x.Sparse(), gs, ga, term, 0)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/adam", func(b *testing.B) {
		o := &optim.Adam{LR: 1e-3}
		p := a.Clone()
		prevP, prevG := tensor.New(a.Rows, a.Cols), tensor.New(a.Rows, a.Cols)
		for b.Loop() {
			if err := o.StepSaving([]*tensor.Dense{p}, []*tensor.Dense{ga}, []*tensor.Dense{prevP}, []*tensor.Dense{prevG}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
