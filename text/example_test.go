package text_test

import (
	"fmt"

	"github.com/neuralnmf/neuralnmf/text"
)

// Fit learns the vocabulary and IDF of a corpus and returns its TF-IDF
// matrix, words × documents; Transform puts new documents in that space.
func ExampleFit() {
	docs := []string{"The cat sat.", "The dog sat down.", "Cat, cat; dog!"}
	v, x, err := text.Fit(text.Strings(docs), text.Options{StopWords: []string{"the"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Vocab)
	fmt.Printf("%d words × %d documents, %d non-zeros\n", x.Rows, x.Cols, x.NNZ())
	// The third document: cat twice, dog once, both with idf ln(4/3)+1,
	// so (2, 1)/√5 after normalisation.
	rows, vals := x.Column(2)
	for p, r := range rows {
		fmt.Printf("%s %.4f\n", v.Vocab[r], vals[p])
	}
	y, _ := v.Transform(text.Strings([]string{"a dog and a zebra"}))
	fmt.Println(y.NNZ(), "known word in the new document")
	// Output:
	// [cat dog down sat]
	// 4 words × 3 documents, 7 non-zeros
	// cat 0.8944
	// dog 0.4472
	// 1 known word in the new document
}
