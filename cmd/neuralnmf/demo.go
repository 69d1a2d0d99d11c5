package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/neuralnmf/neuralnmf/autograd"
	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/ops"
	"github.com/neuralnmf/neuralnmf/optim"
	"github.com/neuralnmf/neuralnmf/tensor"
)

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	rank := fs.Int("rank", 9, "rank k of the factorisation")
	epochs := fs.Int("epochs", 1000, "number of training steps")
	lr := fs.Float64("lr", 0.02, "Adam learning rate")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: neuralnmf demo [flags]\n\nFactorises the paper's embedded 87×90 synthetic matrix X ≈ AS with A, S ≥ 0,\ntraining both factors by projected Adam with every gradient from the tape.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	x := synthetic.X()
	if *rank < 1 || *rank > min(x.Rows, x.Cols) {
		return usageError{fmt.Errorf("-rank %d: want 1 to %d", *rank, min(x.Rows, x.Cols))}
	}
	if *epochs < 1 {
		return usageError{fmt.Errorf("-epochs %d: want at least 1", *epochs)}
	}
	rng := tensor.NewRand(*seed)
	a := tensor.Uniform(x.Rows, *rank, 0, 1, rng)
	s := tensor.Uniform(*rank, x.Cols, 0, 1, rng)
	opt := &optim.Adam{LR: *lr}
	tape := autograd.NewTape()
	xNorm := tensor.Norm(x)
	fmt.Fprintf(stdout, "NMF of the synthetic %d×%d matrix, rank %d, projected Adam (lr %g), seed %d\n", x.Rows, x.Cols, *rank, *lr, *seed)
	fmt.Fprintf(stdout, "%8s  %s\n", "epoch", "‖X − AS‖/‖X‖")
	for epoch := 1; epoch <= *epochs; epoch++ {
		tape.Reset()
		av, sv := tape.Param(a), tape.Param(s)
		loss := ops.FrobeniusLoss(tape.Const(x), ops.MatMul(av, sv))
		g, err := tape.Backward(loss)
		if err != nil {
			return err
		}
		if epoch == 1 || epoch%(max(1, *epochs/10)) == 0 || epoch == *epochs {
			fmt.Fprintf(stdout, "%8d  %.4f\n", epoch, sqrt(loss.Value().Data[0])/xNorm)
		}
		if err := opt.Step([]*tensor.Dense{a, s}, []*tensor.Dense{g.Of(av), g.Of(sv)}); err != nil {
			return err
		}
	}
	return nil
}
