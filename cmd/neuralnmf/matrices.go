package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/tensor"
)

// namedMatrix is one matrix a model holds, by the name every command and
// the report use: Aℓ is layer ℓ's A (A1 is features × layer-1 topics),
// Sℓ layer ℓ's S for the training columns, B the classifier, BX and
// Intercept its parts on the words and its constant. Layers count from 1.
type namedMatrix struct {
	name     string
	m        *tensor.Dense
	rows     string // what a row is
	cols     string // what a column is
	describe string
}

// modelMatrix returns the matrix of m called name (A1..AL, S1..SL, B, BX
// or Intercept, case-insensitive), or a usage error naming flag and the choices.
func modelMatrix(m *neuralnmf.Model, flag, name string) (namedMatrix, error) {
	L := len(m.A)
	choices := []string{fmt.Sprintf("A1..A%d", L)}
	if len(m.S) > 0 {
		choices = append(choices, fmt.Sprintf("S1..S%d", L))
	}
	if m.B != nil {
		choices = append(choices, "B")
	}
	if m.BX != nil {
		choices = append(choices, "BX")
	}
	if m.Intercept != nil {
		choices = append(choices, "Intercept")
	}
	has := strings.Join(choices, ", ")
	if n := len(choices); n > 1 {
		has = strings.Join(choices[:n-1], ", ") + " and " + choices[n-1]
	}
	up := strings.ToUpper(name)
	if up == "B" && m.B != nil {
		cl := m.ReadoutLayer()
		describe := "the classifier: class scores are B·S" + strconv.Itoa(cl)
		if m.BX != nil {
			describe = "the classifier's part on the topics: class scores are B·S" + strconv.Itoa(cl) + " + BX·x/‖x‖ + intercept (BX reads the words)"
		}
		return namedMatrix{"B", m.B, "classes", fmt.Sprintf("layer-%d topics", cl), describe}, nil
	}
	if up == "BX" && m.BX != nil {
		return namedMatrix{"BX", m.BX, "classes", "features", "the classifier's part on the words: class scores gain BX·x/‖x‖ for a document x"}, nil
	}
	if up == "INTERCEPT" && m.Intercept != nil {
		return namedMatrix{"Intercept", m.Intercept, "classes", "constant", "the classifier's constant: class scores gain it for every document"}, nil
	}
	if len(up) >= 2 && (up[0] == 'A' || up[0] == 'S') {
		if l, err := strconv.Atoi(up[1:]); err == nil && l >= 1 && l <= L {
			if up[0] == 'S' && len(m.S) == 0 {
				return namedMatrix{}, usageError{fmt.Errorf("%s %s: the model keeps no S (it was trained with fit -batch-size, which streams its columns); it has %s (run 'neuralnmf transform' for the S of any columns)", flag, name, has)}
			}
			return layerMatrix(m, up[:1], l), nil
		}
	}
	if up == "B" {
		return namedMatrix{}, usageError{fmt.Errorf("%s B: the model has no classifier (it was trained without labels); it has %s", flag, has)}
	}
	return namedMatrix{}, usageError{fmt.Errorf("%s %q: the model has %s", flag, name, has)}
}

// layerMatrix returns Aℓ or Sℓ (kind "A" or "S") of layer l ≥ 1.
func layerMatrix(m *neuralnmf.Model, kind string, l int) namedMatrix {
	topics := func(l int) string { return fmt.Sprintf("layer-%d topics", l) }
	if kind == "S" {
		s := m.S[l-1]
		return namedMatrix{fmt.Sprintf("S%d", l), s, topics(l), "documents",
			fmt.Sprintf("each training column's weights on the %d topics of layer %d", s.Rows, l)}
	}
	a := m.A[l-1]
	if l == 1 {
		return namedMatrix{"A1", a, "features", topics(1), fmt.Sprintf("the %d topics of layer 1 as weights of the %d features", a.Cols, a.Rows)}
	}
	return namedMatrix{fmt.Sprintf("A%d", l), a, topics(l - 1), topics(l),
		fmt.Sprintf("how the %d topics of layer %d are made of the %d of layer %d", a.Cols, l, a.Rows, l-1)}
}

// title is the matrix's name with its shape, e.g. "A2 (10×6)".
func (n namedMatrix) title() string {
	return fmt.Sprintf("%s (%d×%d)", n.name, n.m.Rows, n.m.Cols)
}
