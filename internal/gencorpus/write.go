package gencorpus

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
)

// Write writes documents lo..hi−1 of c as the Matrix Market file out
// (words × documents, sorted by column; gzipped if out ends in .gz),
// atomically, and returns its entries.
func Write(c *Corpus, out string, lo, hi int) (int, error) {
	s := c.s
	nnz := 0
	for j := lo; j < hi; j++ { // a counting pass: the header comes first
		r, _ := c.Document(j)
		nnz += len(r)
	}
	err := matio.WriteAtomic(out, func(f *os.File) error {
		var w io.Writer = f
		var z *gzip.Writer
		if strings.HasSuffix(out, ".gz") {
			z, _ = gzip.NewWriterLevel(f, gzip.BestSpeed)
			w = z
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate real general\n%% gencorpus %+v, documents %d to %d\n%d %d %d\n", s, lo+1, hi, s.Words, hi-lo, nnz)
		var line []byte
		for j := lo; j < hi; j++ {
			r, v := c.Document(j)
			for i := range r {
				line = strconv.AppendInt(line[:0], int64(r[i]+1), 10)
				line = append(line, ' ')
				line = strconv.AppendInt(line, int64(j-lo+1), 10)
				line = append(line, ' ')
				line = strconv.AppendFloat(line, v[i], 'g', 8, 64)
				line = append(line, '\n')
				bw.Write(line)
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if z != nil {
			return z.Close()
		}
		return nil
	})
	return nnz, err
}
