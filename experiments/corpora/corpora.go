// Package corpora builds and reads the labelled text corpora on which the
// semi-supervised defaults are chosen (experiments/semisup).
//
// Each corpus is made from English prose that a Debian machine with Go has
// or can install from its ordinary packages, grouped by a label the prose
// did not choose for us:
//
//	name      documents                                   label               source
//	godoc     doc comments of Go's standard library        package area        $(go env GOROOT)/src
//	man       manual pages                                  section             /usr/share/man (Debian's man pages)
//	info      nodes of the GNU Info manuals                 manual              /usr/share/info
//	javadoc   Javadoc comments of the Java class library    package area        the JDK's lib/src.zip (openjdk-17-source)
//	pydoc     docstrings of Python's standard library       library area        /usr/lib/python3.11 (libpython3.11-stdlib)
//
// None is source code: the builders keep only the comments' and pages'
// text. Debian's AppStream (DEP-11) metadata is not used: it is reserved
// for the project's independent evaluation.
//
// A corpus is a JSON Lines file, one {"id", "label", "text"} object per
// document, written by Write and read by Read. Nothing built here is
// committed; `go run ./experiments/corpora/build -out DIR` makes them.
//
// The splits are fixed by the documents' ids, not by a seed (Split), so a
// corpus rebuilt on another machine from the same sources splits the same.
package corpora

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/neuralnmf/neuralnmf/mt19937"
)

// Doc is one labelled document.
type Doc struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Text  string `json:"text"`
}

// Corpus is a named set of labelled documents.
type Corpus struct {
	Name string
	Docs []Doc
}

// Classes returns the sorted distinct labels of c and each document's class
// index into them.
func (c *Corpus) Classes() (names []string, y []int) {
	idx := map[string]int{}
	for _, d := range c.Docs {
		idx[d.Label] = 0
	}
	for l := range idx {
		names = append(names, l)
	}
	sort.Strings(names)
	for i, l := range names {
		idx[l] = i
	}
	y = make([]int, len(c.Docs))
	for i, d := range c.Docs {
		y[i] = idx[d.Label]
	}
	return names, y
}

// Part is where Split puts a document.
type Part int

const (
	// Train documents are the ones a model is fitted on, some of them with
	// their labels known.
	Train Part = iota
	// Validation documents are scored when the defaults are chosen; they
	// are part of the training documents of the reported runs.
	Validation
	// Test documents are scored only in the reported runs.
	Test
)

// Split places a document by a hash of its id: 20 % test, 16 % validation
// (a fifth of the rest), 64 % train. The reported runs train on Train and
// Validation together and score Test; the choice of defaults trains on
// Train and scores Validation, so it never reads a test document.
func Split(id string) Part {
	h := fnv.New64a()
	h.Write([]byte(id))
	switch v := h.Sum64() % 100; {
	case v < 20:
		return Test
	case v < 36:
		return Validation
	}
	return Train
}

// Known marks, for documents with classes y, which labels a run may see: in
// every class, ⌈frac·n⌉ of its n documents chosen at random with seed
// (MT19937), so that every class has a known label.
func Known(y []int, frac float64, seed uint32) []bool {
	byClass := map[int][]int{}
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Ints(classes)
	rng := mt19937.New(seed)
	known := make([]bool, len(y))
	for _, c := range classes {
		idx := byClass[c]
		for i := len(idx) - 1; i > 0; i-- { // Fisher–Yates
			j := int(rng.Uint32() % uint32(i+1))
			idx[i], idx[j] = idx[j], idx[i]
		}
		n := int(math.Ceil(frac * float64(len(idx))))
		for _, i := range idx[:min(max(n, 1), len(idx))] {
			known[i] = true
		}
	}
	return known
}

// Write writes c to dir/NAME.jsonl through a temporary file, so a failed
// build leaves no half-written corpus.
func Write(dir string, c *Corpus) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, c.Name+".jsonl")
	f, err := os.CreateTemp(dir, "."+c.Name+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, d := range c.Docs {
		if err := enc.Encode(d); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Read reads the corpus name from dir/NAME.jsonl.
func Read(dir, name string) (*Corpus, error) {
	path := filepath.Join(dir, name+".jsonl")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w (build it with `go run ./experiments/corpora/build -out %s`)", name, err, dir)
	}
	defer f.Close()
	c := &Corpus{Name: name}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		var d Doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		c.Docs = append(c.Docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// balance keeps at most limit documents of each label (chosen by a hash of
// their ids, so the choice does not depend on the order of the sources) and
// drops labels with fewer than least; documents are returned sorted by id.
func balance(docs []Doc, least, limit int) []Doc {
	byLabel := map[string][]Doc{}
	for _, d := range docs {
		byLabel[d.Label] = append(byLabel[d.Label], d)
	}
	var out []Doc
	for _, ds := range byLabel {
		if len(ds) < least {
			continue
		}
		sort.Slice(ds, func(i, j int) bool { return idHash(ds[i].ID) < idHash(ds[j].ID) })
		out = append(out, ds[:min(limit, len(ds))]...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// byID returns docs sorted by id, as balance returns them.
func byID(docs []Doc) []Doc {
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	return docs
}

func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("balance:" + id))
	return h.Sum64()
}

// words counts the space-separated words of s.
func words(s string) int { return len(strings.Fields(s)) }

// squash collapses runs of white space to one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Passages splits every document of cs into consecutive passages of size
// words (a last, shorter passage is kept if it has at least size/2 words),
// each labelled as its document, into one corpus named name: many short
// documents, as the corpora of notes, messages and abstracts people fit,
// for experiments/scale's validation.
func Passages(name string, size int, cs ...*Corpus) *Corpus {
	out := &Corpus{Name: name}
	for _, c := range cs {
		for _, d := range c.Docs {
			ws := strings.Fields(d.Text)
			for i := 0; i < len(ws); i += size {
				p := ws[i:min(i+size, len(ws))]
				if len(p) < size/2 {
					break
				}
				out.Docs = append(out.Docs, Doc{ID: fmt.Sprintf("%s#%d", d.ID, i/size), Label: d.Label, Text: strings.Join(p, " ")})
			}
		}
	}
	byID(out.Docs)
	return out
}

// OneIn returns the documents of c whose id hashes to 0 modulo n (about
// one in n, the same ones on every machine) as a corpus named name.
func OneIn(c *Corpus, name string, n int) *Corpus {
	out := &Corpus{Name: name}
	for _, d := range c.Docs {
		if idHash(d.ID)%uint64(n) == 0 {
			out.Docs = append(out.Docs, d)
		}
	}
	return out
}
