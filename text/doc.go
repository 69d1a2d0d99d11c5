// Package text turns documents into the words × documents matrices that
// Neural NMF factorises, exactly as scikit-learn's TfidfVectorizer does.
//
// The zero Options is TfidfVectorizer() with its defaults, and the result
// agrees with scikit-learn to rounding: lowercase with Python's str.lower;
// tokens are the matches of (?u)\b\w\w+\b with Python's Unicode \w
// (letters, numbers and the underscore; Go's regexp \w is ASCII only, so the
// tokenizer is written out); raw term counts; smooth IDF
// ln((1+n)/(1+df)) + 1; each document divided by its Euclidean norm. The
// vocabulary is sorted by code point, as Python sorts strings. Options add
// stop words, min_df/max_df, max_features, sublinear tf, L1 or no
// normalisation, plain counts (CountVectorizer), and the 20 Newsgroups
// cleaning the paper used (StripNewsgroup, then digits removed).
//
// Matrices are words × documents (one column per document), the
// orientation of the rest of neuralnmf, which is the transpose of
// scikit-learn's documents × words.
//
// Differences from scikit-learn, all outside its defaults: ties in
// MaxFeatures are broken by alphabetical order (scikit-learn's unstable
// argsort leaves them unspecified); text must be valid UTF-8 (scikit-learn
// decodes bytes strictly as well, but from a chosen encoding). Python's
// Unicode tables may be older or newer than Go's (a character assigned in
// one version only may be a word character in one and not the other); on
// the 20 Newsgroups posts the vocabulary and the matrix come out exactly as
// scikit-learn's.
//
// A Vectorizer is fitted once (Fit) and then puts new documents into the
// same space (Transform); it is saved as JSON.
package text
