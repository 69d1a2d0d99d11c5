// Package news20 runs the Neural NMF paper's 20 Newsgroups experiment (its
// Table 2, keyword tables and Figure of A⁽¹⁾) on the data in
// shared/data/20news: the exact 45,534×1,000 TF-IDF matrix the paper used,
// 10 newsgroups in 6 supergroups, 75 % of the labels known.
package news20

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// Data is the experiment's input.
type Data struct {
	// X is words × documents (45,534×1,000), sparse, in the Neural NMF
	// notebooks' column order.
	X *tensor.Sparse
	// Super holds each document's supergroup (0–5); Sub its newsgroup (0–9).
	Super, Sub []int
	// Group names each document's newsgroup.
	Group []string
	// KnownNNMF and KnownHNMF mark the labelled documents (750) under each
	// method's own column order, as the notebooks did.
	KnownNNMF, KnownHNMF []bool
	// HNMFCol is each column's position in the HNMF notebook's column order
	// (documents sorted by newsgroup).
	HNMFCol []int
	// Vocab holds the word of each row of X.
	Vocab []string
	// SuperNames names the 6 supergroups.
	SuperNames []string
}

// Load reads the experiment's files from dir (shared/data/20news).
func Load(dir string) (*Data, error) {
	m, err := matio.ReadMatrix(filepath.Join(dir, "paper_subset", "X_tfidf.mtx.gz"))
	if err != nil {
		return nil, err
	}
	if m.Sparse == nil {
		return nil, fmt.Errorf("%s: expected a coordinate (sparse) Matrix Market file", dir)
	}
	d := &Data{X: m.Sparse, SuperNames: make([]string, 6)}
	docs := filepath.Join(dir, "paper_subset", "docs.tsv")
	f, err := os.Open(docs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue // header
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 11 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 11", docs, line, len(fs))
		}
		col, e1 := strconv.Atoi(fs[0])
		sub, e2 := strconv.Atoi(fs[5])
		sup, e3 := strconv.Atoi(fs[6])
		kn, e4 := strconv.Atoi(fs[8])
		kh, e5 := strconv.Atoi(fs[10])
		hc, e6 := strconv.Atoi(fs[9])
		if e1 != nil || e2 != nil || e3 != nil || e4 != nil || e5 != nil || e6 != nil || col != len(d.Super) || sup < 0 || sup > 5 {
			return nil, fmt.Errorf("%s:%d: malformed row", docs, line)
		}
		d.Super = append(d.Super, sup)
		d.Sub = append(d.Sub, sub)
		d.Group = append(d.Group, fs[3])
		d.KnownNNMF = append(d.KnownNNMF, kn == 1)
		d.KnownHNMF = append(d.KnownHNMF, kh == 1)
		d.HNMFCol = append(d.HNMFCol, hc)
		d.SuperNames[sup] = fs[7]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", docs, err)
	}
	if len(d.Super) != d.X.Cols {
		return nil, fmt.Errorf("%s: %d documents for %d columns of X", docs, len(d.Super), d.X.Cols)
	}
	seen := make([]bool, len(d.HNMFCol))
	for i, c := range d.HNMFCol {
		if c < 0 || c >= len(seen) || seen[c] {
			return nil, fmt.Errorf("%s:%d: hnmf_col %d is not a permutation of 0..%d", docs, i+2, c, len(seen)-1)
		}
		seen[c] = true
	}
	vocab := filepath.Join(dir, "paper_subset", "vocab.txt")
	raw, err := os.ReadFile(vocab)
	if err != nil {
		return nil, err
	}
	d.Vocab = strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(d.Vocab) != d.X.Rows {
		return nil, fmt.Errorf("%s: %d words for %d rows of X", vocab, len(d.Vocab), d.X.Rows)
	}
	return d, nil
}
