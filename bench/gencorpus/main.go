// Command gencorpus writes a generated corpus (internal/gencorpus, the
// large-scale benchmark's) as a Matrix Market file sorted by column, and
// its groups as a label file, never holding the corpus:
//
//	go run ./bench/gencorpus -docs 1000000 -o /tmp/corpus.mtx.gz -labels /tmp/groups.txt
//
// With -shards N it writes the documents as N shard files instead, in
// order and of nearly equal size, named after -o: /tmp/c.mtx.gz gives
// /tmp/c-00.mtx.gz, /tmp/c-01.mtx.gz, … (the input of neuralnmf-beam).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/neuralnmf/neuralnmf/internal/gencorpus"
	"github.com/neuralnmf/neuralnmf/matio"
)

func main() {
	docs := flag.Int("docs", 1000000, "documents")
	words := flag.Int("words", 100000, "vocabulary size")
	seed := flag.Uint64("seed", 1, "seed")
	out := flag.String("o", "", "output .mtx or .mtx.gz (required)")
	labels := flag.String("labels", "", "optional output: each document's group, one per line")
	shards := flag.Int("shards", 1, "write this many shard files named after -o")
	flag.Parse()
	if err := run(*docs, *words, *seed, *out, *labels, *shards); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func run(docs, words int, seed uint64, out, labels string, shards int) error {
	if out == "" {
		return fmt.Errorf("-o is required")
	}
	if shards < 1 || shards > docs {
		return fmt.Errorf("-shards is %d, want 1 to -docs", shards)
	}
	s := gencorpus.Default(docs)
	s.Words, s.Seed = words, seed
	c, err := gencorpus.New(s)
	if err != nil {
		return err
	}
	total := 0
	for i := range shards {
		name := out
		if shards > 1 {
			ext := ".mtx"
			if strings.HasSuffix(out, ".gz") {
				ext = ".mtx.gz"
			}
			name = fmt.Sprintf("%s-%02d%s", strings.TrimSuffix(out, ext), i, ext)
		}
		n, err := gencorpus.Write(c, name, i*docs/shards, (i+1)*docs/shards)
		if err != nil {
			return err
		}
		total += n
	}
	if labels != "" {
		err = matio.WriteAtomic(labels, func(f *os.File) error {
			bw := bufio.NewWriter(f)
			for j := 0; j < docs; j++ {
				fmt.Fprintln(bw, c.Group(j))
			}
			return bw.Flush()
		})
	}
	fmt.Printf("wrote %s (%d files): %d words × %d documents, %d entries\n", out, shards, words, docs, total)
	return err
}
