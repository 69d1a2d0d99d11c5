package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/quality"
)

func runTopics(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("topics", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file from 'neuralnmf fit' (required)")
	vocabPath := fs.String("vocab", "", "vocabulary: one word per line, line i naming row i of X (required unless the model was trained with fit -text)")
	n := fs.Int("n", 10, "words per topic")
	format := fs.String("format", "text", "output: text (words per topic), csv (layer,topic,rank,word,weight) or json (layers of topics of words with weights)")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: neuralnmf topics -model m.nnmf [-vocab vocab.txt] [-format text|csv|json] [flags]

Prints the top words of each topic at each layer to standard output. Layer
ℓ's topics are the columns of A1⋯Aℓ (features × layer-ℓ topics); a word's
weight is its entry there. Layers and topics count from 1.

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\n"+exitCodesHelp)
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *n < 1 {
		return usageError{errors.New("-n must be at least 1")}
	}
	write, err := choose("format", *format, choice[func(io.Writer, []layerTopics) error]{"text", writeTopicsText},
		choice[func(io.Writer, []layerTopics) error]{"csv", writeTopicsCSV}, choice[func(io.Writer, []layerTopics) error]{"json", writeTopicsJSON})
	if err != nil {
		return err
	}
	m, err := loadModel(*modelPath)
	if err != nil {
		return err
	}
	vocab, err := modelVocab(*modelPath, *vocabPath, m)
	if err != nil {
		return err
	}
	if vocab == nil {
		return usageError{fmt.Errorf("-vocab is required: -model %s was trained on a matrix, not on text, so it has no vocabulary", *modelPath)}
	}
	return write(stdout, topTopics(m, vocab, *n))
}

// modelVocab returns the words of the model's features: the -vocab file
// when given, else the model's own vectoriser's, else nil.
func modelVocab(modelPath, vocabPath string, m *neuralnmf.Model) ([]string, error) {
	var vocab []string
	switch {
	case vocabPath != "":
		var err error
		if vocab, err = readWordList(vocabPath); err != nil {
			return nil, err
		}
		if len(vocab) != m.A[0].Rows {
			return nil, fmt.Errorf("-vocab %s: %d words, but the model has %d features", vocabPath, len(vocab), m.A[0].Rows)
		}
	case m.Vectorizer != nil:
		v, err := modelVectorizer(modelPath, m)
		if err != nil {
			return nil, err
		}
		vocab = v.Vocab
	}
	return vocab, nil
}

// layerTopics are one layer's topics, each its top words with weights.
type layerTopics struct {
	Layer  int          `json:"layer"`
	N      int          `json:"-"` // the top words asked for
	Topics []topicWords `json:"topics"`
}

type topicWords struct {
	Topic int          `json:"topic"`
	Words []wordWeight `json:"words"`
}

type wordWeight struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

// topTopics returns the n top words of every topic of every layer.
func topTopics(m *neuralnmf.Model, vocab []string, n int) []layerTopics {
	var out []layerTopics
	for l, a := range neuralnmf.LayerTopics(m.A) {
		lt := layerTopics{Layer: l + 1, N: n}
		for j, rows := range quality.TopWords(a, n) { // words of weight 0 are no topic's
			t := topicWords{Topic: j + 1, Words: []wordWeight{}}
			for _, i := range rows {
				t.Words = append(t.Words, wordWeight{vocab[i], a.At(i, j)})
			}
			lt.Topics = append(lt.Topics, t)
		}
		out = append(out, lt)
	}
	return out
}

func writeTopicsText(w io.Writer, layers []layerTopics) error {
	for _, l := range layers {
		fmt.Fprintf(w, "Layer %d (%d topics):\n", l.Layer, len(l.Topics))
		for _, t := range l.Topics {
			words := make([]string, len(t.Words))
			for k, ww := range t.Words {
				words[k] = ww.Word
			}
			note := ""
			if len(t.Words) == 0 {
				note = "(empty: no word of positive weight)"
			} else if len(t.Words) < l.N {
				note = fmt.Sprintf("  (only %d word(s) of positive weight)", len(t.Words))
			}
			fmt.Fprintf(w, "  topic %-3d %s%s\n", t.Topic, strings.Join(words, ", "), note)
		}
	}
	return nil
}

func writeTopicsCSV(w io.Writer, layers []layerTopics) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"layer", "topic", "rank", "word", "weight"})
	for _, l := range layers {
		for _, t := range l.Topics {
			for k, ww := range t.Words {
				cw.Write([]string{strconv.Itoa(l.Layer), strconv.Itoa(t.Topic), strconv.Itoa(k + 1), ww.Word, strconv.FormatFloat(ww.Weight, 'g', -1, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeTopicsJSON(w io.Writer, layers []layerTopics) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(layers)
}
