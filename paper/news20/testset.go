package news20

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/ssnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
	"github.com/neuralnmf/neuralnmf/text"
)

// TestSet is unseen documents in the paper's TF-IDF space: test posts of
// the 10 groups, which the paper never used.
type TestSet struct {
	// X is words × documents in d.Vocab's rows.
	X *tensor.Sparse
	// Super holds each document's supergroup.
	Super []int
	// PerGroup and Seed say how the documents were drawn.
	PerGroup int
	Seed     uint64
}

// PaperVectorizer fits the paper's TF-IDF vectoriser (scikit-learn's
// defaults, the notebooks' stop words, the 20 Newsgroups cleaning) on the
// 5,616 training posts in dir/raw, and checks that its vocabulary is d's.
func PaperVectorizer(dir string, d *Data) (*text.Vectorizer, error) {
	stop, err := text.ReadStopWords(filepath.Join(dir, "paper_subset", "stopwords.txt"))
	if err != nil {
		return nil, err
	}
	src := text.Source{Path: filepath.Join(dir, "raw", "train_10groups.jsonl.gz")}
	v, _, err := text.Fit(src.Texts(), text.Options{StopWords: stop, Newsgroups: true})
	if err != nil {
		return nil, err
	}
	if !slices.Equal(v.Vocab, d.Vocab) {
		return nil, fmt.Errorf("%s: the vectoriser's vocabulary (%d words) is not the paper's (%d)", src.Path, len(v.Vocab), len(d.Vocab))
	}
	return v, nil
}

// LoadTestSet draws perGroup test posts of each of the 10 groups from
// dir/raw/test_10groups.jsonl.gz (a uniform sample without replacement,
// from a PCG generator seeded with seed) and puts them into the paper's
// TF-IDF space with PaperVectorizer.
func LoadTestSet(dir string, d *Data, perGroup int, seed uint64) (*TestSet, error) {
	if perGroup < 1 {
		return nil, fmt.Errorf("news20: LoadTestSet: perGroup is %d, want at least 1", perGroup)
	}
	v, err := PaperVectorizer(dir, d)
	if err != nil {
		return nil, err
	}
	super := map[string]int{}
	for i, g := range d.Group {
		super[g] = d.Super[i]
	}
	path := filepath.Join(dir, "raw", "test_10groups.jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var posts, groups []string
	byGroup := map[string][]int{}
	for dec := json.NewDecoder(z); dec.More(); {
		var post struct{ Group, Text string }
		if err := dec.Decode(&post); err != nil {
			return nil, fmt.Errorf("%s: post %d: %w", path, len(posts)+1, err)
		}
		if _, ok := super[post.Group]; !ok {
			return nil, fmt.Errorf("%s: post %d has group %q, not one of the experiment's 10", path, len(posts)+1, post.Group)
		}
		byGroup[post.Group] = append(byGroup[post.Group], len(posts))
		posts, groups = append(posts, post.Text), append(groups, post.Group)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6e6577733230))
	var chosen []int
	names := make([]string, 0, len(byGroup))
	for g := range byGroup {
		names = append(names, g)
	}
	slices.Sort(names)
	for _, g := range names {
		idx := byGroup[g]
		if len(idx) < perGroup {
			return nil, fmt.Errorf("%s: group %s has %d test posts, fewer than %d", path, g, len(idx), perGroup)
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		chosen = append(chosen, idx[:perGroup]...)
	}
	slices.Sort(chosen)
	ts := &TestSet{PerGroup: perGroup, Seed: seed}
	docs := make([]string, len(chosen))
	for k, p := range chosen {
		docs[k] = posts[p]
		ts.Super = append(ts.Super, super[groups[p]])
	}
	if ts.X, err = v.Transform(text.Strings(docs)); err != nil {
		return nil, err
	}
	return ts, nil
}

// TestAccuracy classifies the test documents with a run's factors: their
// forward pass through r.A (NNLS layer by layer, as Model.Transform does),
// then at each layer the read-out B = (Y∘L)·S† fitted on the training
// documents' S with the labels the run was scored with (r.Known), and
// argmax(B·S_test). It returns the share right per layer.
func TestAccuracy(r *Result, d *Data, ts *TestSet) ([2]float64, error) {
	var acc [2]float64
	m := &neuralnmf.Model{A: r.A, S: r.S}
	st, err := m.Transform(ts.X)
	if err != nil {
		return acc, err
	}
	seen, _ := classify.SplitLabels(d.Super, r.Known)
	for l := range st {
		b, err := classify.FitReadout(r.S[l], seen, Classes)
		if err != nil {
			return acc, err
		}
		acc[l] = classify.Accuracy(classify.Predict(b, st[l]), ts.Super)
	}
	return acc, nil
}

// NMF is the one-layer baseline: two separate NMFs of X (ssnmf's defaults
// run to convergence, seed seed), of rank 10 and of rank 6, each scored like
// a layer of the hierarchy on the Neural NMF rows' 250 documents and, when
// ts is not nil, on the test documents. The Result holds no factors.
func NMF(d *Data, seed uint64, ts *TestSet) (*Result, error) {
	r := &Result{Known: d.KnownNNMF}
	for l, k := range Ranks {
		f, err := ssnmf.NMFSparse(d.X, k, &ssnmf.Options{Seed: seed})
		if err != nil {
			return nil, fmt.Errorf("NMF rank %d: %w", k, err)
		}
		r.Acc[l] = LayerAccuracy(f.S, d.Super, d.KnownNNMF)
		if ts != nil {
			one := &Result{A: []*tensor.Dense{f.A}, S: []*tensor.Dense{f.S}, Known: d.KnownNNMF}
			acc, err := TestAccuracy(one, d, ts)
			if err != nil {
				return nil, fmt.Errorf("NMF rank %d: %w", k, err)
			}
			r.TestAcc[l] = acc[0]
		}
	}
	return r, nil
}
