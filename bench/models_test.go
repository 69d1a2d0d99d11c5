package bench

import (
	"testing"

	"github.com/neuralnmf/neuralnmf/datasets/synthetic"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// BenchmarkSSNMF is 100 multiplicative updates of semi-supervised NMF on the
// paper's synthetic matrix (rank 9, 9 classes, 40 labelled columns).
func BenchmarkSSNMF(b *testing.B) {
	x := synthetic.X()
	labels, _ := synthetic.Labels(9)
	known, _ := synthetic.Known(40)
	y, _ := tensor.OneHot(labels, 9)
	lab := &ssnmf.Labels{Y: y, Z: tensor.ColumnMask(9, known), Lambda: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ssnmf.SSNMF(x, 9, lab, &ssnmf.Options{MaxIter: 100, Tol: -1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNMFSparse is 20 updates of NMF of a 20000×1000 sparse matrix
// (1 % non-zeros, the shape of a document-term matrix) with rank 10.
func BenchmarkNMFSparse(b *testing.B) {
	rng := tensor.NewRand(5)
	var es []tensor.Entry
	for i := 0; i < 200000; i++ {
		es = append(es, tensor.Entry{Row: rng.IntN(20000), Col: rng.IntN(1000), Val: rng.Float64()})
	}
	x, err := tensor.NewSparse(20000, 1000, es)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ssnmf.NMFSparse(x, 10, &ssnmf.Options{MaxIter: 20, Tol: -1}); err != nil {
			b.Fatal(err)
		}
	}
}
