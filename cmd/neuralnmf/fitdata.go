package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/neuralnmf/neuralnmf/classify"
	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
)

// fitData is what fit reads: X, and for -text the vectoriser and each
// document's label field.
type fitData struct {
	x          *matio.Matrix
	stream     *matio.ColumnReader // -x streamed by -batch-size; x is nil
	from       string              // "-x FILE" or "-text FILE"
	vectorizer []byte
	labels     []string // -label-field values, "" unknown
	classNames []string
}

// data returns X as the library takes it: the column stream, or the
// matrix, sparse or dense.
func (d *fitData) data() neuralnmf.Data {
	switch {
	case d.stream != nil:
		return d.stream
	case d.x.Sparse != nil:
		return d.x.Sparse
	}
	return d.x.Dense
}

// dims returns the rows and columns of X.
func (d *fitData) dims() (int, int) {
	if d.stream != nil {
		return d.stream.Dims()
	}
	return d.x.Dims()
}

// read reads -x (or, with -batch-size, opens a coordinate -x for
// streaming), or vectorises -text.
func (f *fitFlags) read(prog *fitProgress, stderr io.Writer) (*fitData, error) {
	if *f.textPath == "" {
		if *f.batchSize > 0 && matio.IsMatrixMarket(*f.xPath) {
			r, err := matio.OpenColumns(*f.xPath)
			if err == nil {
				r.RequireNonnegative()
				return &fitData{stream: r, from: "-x " + *f.xPath}, nil
			}
			if !errors.Is(err, matio.ErrNotStreamable) {
				return nil, err
			}
		}
		prog.phase("reading " + *f.xPath)
		x, err := readData(*f.xPath, "-x", stderr)
		return &fitData{x: x, from: "-x " + *f.xPath}, err
	}
	topt, err := f.text.options()
	if err != nil {
		return nil, err
	}
	prog.phase("reading and vectorising " + *f.textPath)
	var info docInfo
	v, xs, err := fitText("-text "+*f.textPath, info.texts(f.docs.source(*f.textPath), f.docs), topt)
	if err != nil {
		return nil, err
	}
	vec, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &fitData{x: &matio.Matrix{Sparse: xs}, from: "-text " + *f.textPath, vectorizer: vec, labels: info.labels}, nil
}

// supervision completes sup (which holds λ, the balance and the
// classifier) with the labels of -labels and -label-mask, or of
// -label-field, and returns it with the class names; nil without labels.
func (f *fitFlags) supervision(d *fitData, sup *neuralnmf.Supervision) (*neuralnmf.Supervision, []string, error) {
	_, m := d.dims()
	var labels []int
	var names []string
	source := *f.labelsPath
	switch {
	case *f.labelsPath != "":
		var err error
		if labels, err = matio.ReadLabelsFile(*f.labelsPath); err != nil {
			return nil, nil, err
		}
		if len(labels) != m {
			return nil, nil, fmt.Errorf("%s: %d labels for the %d columns of %s", *f.labelsPath, len(labels), m, d.from)
		}
	case *f.docs.labelField != "":
		source = "-label-field " + *f.docs.labelField
		names = classNamesOf(d.labels)
		if err := neuralnmf.CheckClassNames(names); err != nil {
			doc := 0
			for i, l := range d.labels {
				if err := neuralnmf.CheckClassNames([]string{l}); l != "" && err != nil {
					doc = i + 1
					break
				}
			}
			return nil, nil, fmt.Errorf("%s: document %d's class name %q holds a control character (a line break or a tab), which the model file, the printed tables and predict's CSV cannot keep: rename the class", source, doc, d.labels[max(doc-1, 0)])
		}
		labels, _ = labelIDs(d.labels, names)
	default:
		return nil, nil, nil
	}
	classes, err := classify.CheckLabels(labels)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	known := make([]bool, m)
	for i, l := range labels {
		known[i] = l >= 0
	}
	if *f.maskPath != "" {
		if known, err = readLabelMask(*f.maskPath, labels, d.from); err != nil {
			return nil, nil, err
		}
	}
	if classes < 2 {
		return nil, nil, fmt.Errorf("%s: need labels of at least 2 classes", source)
	}
	sup.Labels, sup.Classes, sup.Known = labels, classes, known
	return sup, names, nil
}

// readLabelMask reads -label-mask: one 0/1 per column, 1 only where the
// label is known.
func readLabelMask(path string, labels []int, from string) ([]bool, error) {
	mask, err := matio.ReadLabelsFile(path)
	if err != nil {
		return nil, err
	}
	if len(mask) != len(labels) {
		return nil, fmt.Errorf("%s: %d entries for the %d columns of %s", path, len(mask), len(labels), from)
	}
	known := make([]bool, len(mask))
	for i, v := range mask {
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("%s: entry %d is %d, want 0 or 1", path, i+1, v)
		}
		if v == 1 && labels[i] < 0 {
			return nil, fmt.Errorf("%s: sample %d is marked known but its label is %d", path, i+1, labels[i])
		}
		known[i] = v == 1
	}
	return known, nil
}
