package news20

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// Candidate is one Neural NMF configuration that Validate compares.
type Candidate struct {
	Name   string
	Semi   bool // supervised by the training labels at the last layer
	Config NeuralConfig
}

// Candidates lists the configurations Validate compares, in order of
// preference: among the candidates of one setting whose validation score is
// within one standard error of the best, Validate chooses the one listed
// first. Each setting lists the authors' own configuration first, then the
// paper's, then variations.
var Candidates = func() []Candidate {
	authorsGD := func(lambda float64, epochs int) NeuralConfig {
		c := DefaultSemiSupervised
		c.Lambda, c.Epochs = lambda, epochs
		return c
	}
	adam := func(loss neuralnmf.Loss, authors bool, cl neuralnmf.Classifier, lambda float64) NeuralConfig {
		if authors {
			loss = neuralnmf.Reconstruction // unused: AuthorsLoss trains the normalised energy loss
		}
		return NeuralConfig{Epochs: 300, Lambda: lambda, InitRestarts: 1, Restarts: 1, LR: 0.01,
			AuthorsLoss: authors, Classifier: cl, Loss: loss, Init: neuralnmf.HNMFInit, Optimizer: neuralnmf.Adam}
	}
	return []Candidate{
		{"authors' objective, Adam from HNMF", false, adam(neuralnmf.Energy, true, 0, 0)},
		{"paper's ‖X − A⁽⁰⁾A⁽¹⁾S⁽¹⁾‖², Adam from HNMF", false, adam(neuralnmf.Reconstruction, false, 0, 0)},
		{"authors' objective, authors' GD from random", false, authorsGD(0, 100)},

		{"authors' objective + LS, authors' GD, λ = 1e-6 (authors')", true, authorsGD(1e-6, 100)},
		{"paper's loss + LS, Adam from HNMF, λ = 10", true, adam(neuralnmf.Reconstruction, false, neuralnmf.LeastSquares, 10)},
		{"authors' objective + LS, authors' GD, λ = 1e-7", true, authorsGD(1e-7, 100)},
		{"authors' objective + LS, authors' GD, λ = 3e-6", true, authorsGD(3e-6, 100)},
		{"authors' objective + LS, authors' GD, λ = 1e-5", true, authorsGD(1e-5, 100)},
		{"authors' objective + LS, authors' GD, λ = 1e-5, 200 epochs", true, authorsGD(1e-5, 200)},
		{"authors' objective + LS, authors' GD, λ = 3e-5", true, authorsGD(3e-5, 100)},
		{"authors' objective + LS, authors' GD, λ = 1e-4", true, authorsGD(1e-4, 100)},
		{"energy loss + LS, Adam from HNMF, λ = 10", true, adam(neuralnmf.Energy, false, neuralnmf.LeastSquares, 10)},
		{"authors' objective + CE, Adam from HNMF, λ = 1", true, adam(neuralnmf.Energy, true, neuralnmf.CrossEntropy, 1)},
		{"authors' objective + LS, Adam from HNMF, λ = 1e-2", true, adam(neuralnmf.Energy, true, neuralnmf.LeastSquares, 1e-2)},
	}
}()

// ValidationSplit splits the 750 labelled documents of the Neural NMF
// notebooks' mask: positions 0–49 of each block of 100 columns train
// (500 documents), positions 50–74 validate (250). It returns the training
// mask and a copy of d.Super in which every document outside the 750 has
// label −1, so that nothing run on the split can see the labels of the 250
// evaluation documents.
func ValidationSplit(d *Data) (train []bool, labels []int) {
	train = make([]bool, len(d.Super))
	labels = make([]int, len(d.Super))
	for p := range d.Super {
		labels[p] = -1
		if d.KnownNNMF[p] {
			labels[p] = d.Super[p]
			train[p] = p%100 < 50
		}
	}
	return train, labels
}

// ValidateOptions configures Validate.
type ValidateOptions struct {
	// Seeds is the number of seeds (0, 1, …) per candidate; at least 2, so
	// that a standard error exists.
	Seeds int
	// Candidates replaces the package's Candidates when not nil.
	Candidates []Candidate
	// Progress, if not nil, is called after each finished run.
	Progress func(done, total int, elapsed time.Duration)
}

// Validation is the outcome of Validate.
type Validation struct {
	Candidates []Candidate
	Seeds      int
	// Acc[c][seed] is candidate c's validation accuracy per layer.
	Acc [][][2]float64
	// Unsupervised and SemiSupervised index the chosen candidates.
	Unsupervised, SemiSupervised int
	Elapsed                      time.Duration
}

// Score is the quantity Validate maximises for one run: the mean of the
// two layers' validation accuracies.
func Score(acc [2]float64) float64 { return (acc[0] + acc[1]) / 2 }

// Validate trains every candidate with seeds 0 … Seeds−1 on the whole
// matrix, supervised (when the candidate is semi-supervised) by the 500
// training labels of ValidationSplit, and scores each layer on the 250
// validation documents with the read-out fitted on the 500. It then
// chooses, for each setting, the candidate with the best mean Score, or the
// first listed among those within one standard error of it (the
// one-standard-error rule: a difference smaller than the noise of 250
// documents does not overturn the order of preference). The labels of the
// 250 evaluation documents are never read.
func Validate(d *Data, o ValidateOptions) (*Validation, error) {
	if o.Seeds < 2 {
		return nil, fmt.Errorf("news20: Validate: Seeds is %d, want at least 2", o.Seeds)
	}
	cands := o.Candidates
	if cands == nil {
		cands = Candidates
	}
	train, labels := ValidationSplit(d)
	v := &Validation{Candidates: cands, Seeds: o.Seeds, Acc: make([][][2]float64, len(cands))}
	for c := range cands {
		v.Acc[c] = make([][2]float64, o.Seeds)
	}
	var err error
	v.Elapsed, err = runJobs(len(cands)*o.Seeds, o.Progress, func(i int) (func(), error) {
		c, seed := i/o.Seeds, i%o.Seeds
		r, err := neural(d, labels, train, cands[c].Semi, uint64(seed), cands[c].Config, 1)
		if err != nil {
			return nil, fmt.Errorf("%s, seed %d: %w", cands[c].Name, seed, err)
		}
		return func() { v.Acc[c][seed] = r.Acc }, nil
	})
	if err != nil {
		return nil, err
	}
	v.Unsupervised, v.SemiSupervised = v.choose(false), v.choose(true)
	return v, nil
}

// ScoreStats returns candidate c's mean Score over seeds and its standard
// error.
func (v *Validation) ScoreStats(c int) (mean, se float64) {
	scores := make([]float64, len(v.Acc[c]))
	for i, a := range v.Acc[c] {
		scores[i] = Score(a)
	}
	mean, sd, _, _ := summary(scores)
	return mean, sd / math.Sqrt(float64(len(scores)))
}

// choose applies the one-standard-error rule to the candidates of one
// setting; it returns −1 when the setting has no candidate.
func (v *Validation) choose(semi bool) int {
	best, bestMean, bestSE := -1, math.Inf(-1), 0.0
	for c, cd := range v.Candidates {
		if cd.Semi != semi {
			continue
		}
		if m, se := v.ScoreStats(c); m > bestMean {
			best, bestMean, bestSE = c, m, se
		}
	}
	for c, cd := range v.Candidates {
		if cd.Semi != semi {
			continue
		}
		if m, _ := v.ScoreStats(c); m >= bestMean-bestSE {
			return c
		}
	}
	return best
}

// layerStats returns the mean, sample sd, minimum and maximum of layer l
// over a candidate's seeds.
func layerStats(acc [][2]float64, l int) (mean, sd, lo, hi float64) {
	xs := make([]float64, len(acc))
	for i, a := range acc {
		xs[i] = a[l]
	}
	return summary(xs)
}

// summary returns the mean, sample standard deviation (0 for fewer than two
// values), minimum and maximum of xs.
func summary(xs []float64) (mean, sd, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(sd / float64(len(xs)-1))
	} else {
		sd = 0
	}
	return mean, sd, lo, hi
}

// WriteTable writes the validation table: per candidate, each layer's mean
// ± sd [min–max] over seeds and the Score's mean ± standard error, the
// chosen candidates marked, and whether they are the package's defaults.
func (v *Validation) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "Validation: 500 of the 750 known labels train (positions 0–49 of each block of 100), 250 validate (50–74);\n")
	fmt.Fprintf(w, "the 250 evaluation documents' labels are not read. Seeds 0–%d per candidate.\n", v.Seeds-1)
	fmt.Fprintf(w, "Score = mean of the two layers; chosen (←) = first listed within one standard error of the best.\n\n")
	for _, semi := range []bool{false, true} {
		title, chosen := "unsupervised", v.Unsupervised
		if semi {
			title, chosen = "semi-supervised", v.SemiSupervised
		}
		fmt.Fprintf(w, "%s\n  %-62s %-26s %-26s %s\n", title, "", "layer 1 mean ± sd [min–max]", "layer 2 mean ± sd [min–max]", "score ± se")
		for c, cd := range v.Candidates {
			if cd.Semi != semi {
				continue
			}
			fmt.Fprintf(w, "  %-62s", cd.Name)
			for l := 0; l < 2; l++ {
				m, sd, lo, hi := layerStats(v.Acc[c], l)
				fmt.Fprintf(w, " %-26s", fmt.Sprintf("%.3f ± %.3f [%.3f–%.3f]", m, sd, lo, hi))
			}
			m, se := v.ScoreStats(c)
			mark := ""
			if c == chosen {
				mark = "  ←"
			}
			fmt.Fprintf(w, " %.3f ± %.3f%s\n", m, se, mark)
		}
		fmt.Fprintln(w)
	}
	def := func(c int, d NeuralConfig) string {
		if c >= 0 && v.Candidates[c].Config == d {
			return "is the default"
		}
		return "differs from the default"
	}
	if v.Unsupervised >= 0 {
		fmt.Fprintf(w, "Chosen unsupervised configuration %s (DefaultUnsupervised).\n", def(v.Unsupervised, DefaultUnsupervised))
	}
	if v.SemiSupervised >= 0 {
		fmt.Fprintf(w, "Chosen semi-supervised configuration %s (DefaultSemiSupervised).\n", def(v.SemiSupervised, DefaultSemiSupervised))
	}
}
