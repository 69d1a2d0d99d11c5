package semisup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/neuralnmf/neuralnmf/experiments/corpora"
	"github.com/neuralnmf/neuralnmf/matio"
)

// The names baselines.py gives scikit-learn's methods in its runs.
const (
	SklearnNMFName = "sklearn NMF + read-out"
	LogRegName     = "LogisticRegression on TF-IDF"
	LogRegCVName   = "LogisticRegression, C by CV"
	SpreadingName  = "LabelSpreading (kNN)"
	// SelfTrainingName is scikit-learn's SelfTrainingClassifier around
	// LogisticRegression with LogisticRegressionCV's C.
	SelfTrainingName = "SelfTraining(LogReg)"
)

// BaselineScript is the Python script that scores scikit-learn's baselines
// on the files WriteBaselineInputs writes.
const BaselineScript = "baselines.py"

// WriteBaselineInputs writes sp and its known-label masks for every
// fraction and seed into dir, as baselines.py reads them: XTrain.mtx and
// XEval.mtx (words × documents), ytrain.txt and yeval.txt (one class per
// line) and known-FRACTION-SEED.txt (one 0/1 per training document).
func WriteBaselineInputs(dir string, sp *Split, seeds []uint32) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, x := range map[string]*matio.Matrix{"XTrain.mtx": {Sparse: sp.XTrain}, "XEval.mtx": {Sparse: sp.XEval}} {
		if err := matio.WriteAtomic(filepath.Join(dir, name), func(f *os.File) error { return matio.WriteMatrixMarket(f, x) }); err != nil {
			return err
		}
	}
	write := func(name string, v []int) error {
		return matio.WriteAtomic(filepath.Join(dir, name), func(f *os.File) error {
			w := bufio.NewWriter(f)
			for _, x := range v {
				fmt.Fprintln(w, x)
			}
			return w.Flush()
		})
	}
	if err := write("ytrain.txt", sp.YTrain); err != nil {
		return err
	}
	if err := write("yeval.txt", sp.YEval); err != nil {
		return err
	}
	for _, f := range Fractions {
		for _, seed := range seeds {
			known := corpora.Known(sp.YTrain, f, seed)
			k := make([]int, len(known))
			for i, b := range known {
				if b {
					k[i] = 1
				}
			}
			if err := write(fmt.Sprintf("known-%s-%d.txt", strconv.FormatFloat(f, 'g', -1, 64), seed), k); err != nil {
				return err
			}
		}
	}
	return nil
}

// SklearnBaselines runs baselines.py ($PYTHON, default /usr/bin/python3,
// with Debian's python3-sklearn) on the
// inputs in dir and returns its runs: scikit-learn's NMF with P topics +
// the least-squares read-out, and LogisticRegression on the TF-IDF, for
// every fraction and seed.
func SklearnBaselines(script, dir, corpus string, seeds []uint32) ([]Run, error) {
	args := []string{script, dir}
	for _, s := range seeds {
		args = append(args, strconv.Itoa(int(s)))
	}
	py := os.Getenv("PYTHON")
	if py == "" {
		py = "/usr/bin/python3" // Debian's, where python3-sklearn installs
	}
	out, err := exec.Command(py, args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("python3 %s: %w: %s", script, err, ee.Stderr)
		}
		return nil, fmt.Errorf("python3 %s: %w", script, err)
	}
	var runs []Run
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("python3 %s: %w in %q", script, err, sc.Text())
		}
		r.Corpus = corpus
		runs = append(runs, r)
	}
	return runs, nil
}
