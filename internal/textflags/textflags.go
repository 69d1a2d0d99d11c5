// Package textflags holds the command-line flags of the text vectoriser's
// options, shared by neuralnmf's vectorize and fit -text and by
// neuralnmf-beam's vectorize, so that the same flags mean the same
// options in both commands.
package textflags

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/neuralnmf/neuralnmf/text"
)

// Flags are the vectoriser's options as flags of one FlagSet.
type Flags struct {
	stopwords, minDF, maxDF, norm                            *string
	newsgroups, keepCase, sublinear, counts, noIDF, noSmooth *bool
	maxFeatures                                              *int
}

// UsageError is an Options error caused by a flag's value (a wrong
// command line, not an unreadable file).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// English is the -stopwords value that names scikit-learn's English list
// rather than a file.
const English = "english"

// Names lists the flags of the vectoriser's options.
func (t Flags) Names() []string {
	return []string{"stopwords", "newsgroups", "keep-case", "min-df", "max-df", "max-features", "sublinear-tf", "counts", "norm", "no-idf", "no-smooth-idf"}
}

// Add defines the flags in fs.
func Add(fs *flag.FlagSet) Flags {
	return Flags{
		stopwords:   fs.String("stopwords", "", "stop words to drop: english (scikit-learn's English list, 318 words) or a file of words, one per line (a file named english: ./english)"),
		newsgroups:  fs.Bool("newsgroups", false, "strip Usenet headers, signatures and quoted lines as scikit-learn's fetch_20newsgroups does, then remove digits (the paper's cleaning)"),
		keepCase:    fs.Bool("keep-case", false, "do not lowercase"),
		minDF:       fs.String("min-df", "", "drop words in fewer documents: a count (2) or a fraction with a point (0.01)"),
		maxDF:       fs.String("max-df", "", "drop words in more documents: a count (500) or a fraction with a point (0.5)"),
		maxFeatures: fs.Int("max-features", 0, "keep only this many words, those of the largest total counts (0: all); ties at the cut go to the alphabetically first, where scikit-learn's unstable sort may keep others"),
		sublinear:   fs.Bool("sublinear-tf", false, "use 1 + ln(count) instead of the count"),
		counts:      fs.Bool("counts", false, "raw term counts: no IDF, no normalisation"),
		norm:        fs.String("norm", "l2", "document normalisation: l2, l1 or none"),
		noIDF:       fs.Bool("no-idf", false, "no IDF weighting"),
		noSmooth:    fs.Bool("no-smooth-idf", false, "IDF ln(n/df) + 1 instead of ln((1+n)/(1+df)) + 1"),
	}
}

// ParseDocFreq reads a -min-df/-max-df value as scikit-learn reads min_df
// and max_df: an integer is a number of documents, a number with a point or
// exponent a fraction of them.
func ParseDocFreq(flag, s string) (text.DocFreq, error) {
	if s == "" {
		return text.DocFreq{}, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return text.DocFreq{}, &UsageError{fmt.Errorf("-%s is %d: want a count ≥ 0 or a fraction in [0, 1]", flag, n)}
		}
		return text.Docs(n), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return text.DocFreq{}, &UsageError{fmt.Errorf("-%s is %q: want a count (an integer) or a fraction in [0, 1] (with a point)", flag, s)}
	}
	return text.Share(f), nil
}

// StopWordsFile returns the path of the -stopwords file, or "" when the
// flag names the built-in list or none.
func (t Flags) StopWordsFile() string {
	if *t.stopwords == English {
		return ""
	}
	return *t.stopwords
}

// Options returns the vectoriser options the flags say, reading the stop
// words file if one is named. A bad value is a *UsageError.
func (t Flags) Options() (text.Options, error) {
	o := text.Options{Newsgroups: *t.newsgroups, KeepCase: *t.keepCase, MaxFeatures: *t.maxFeatures,
		SublinearTF: *t.sublinear, Counts: *t.counts, NoIDF: *t.noIDF, NoSmoothIDF: *t.noSmooth}
	var err error
	if o.MinDF, err = ParseDocFreq("min-df", *t.minDF); err != nil {
		return o, err
	}
	if o.MaxDF, err = ParseDocFreq("max-df", *t.maxDF); err != nil {
		return o, err
	}
	if mn, mx := o.MinDF, o.MaxDF; mn.IsSet && mx.IsSet && mn.IsFrac == mx.IsFrac &&
		(mn.IsFrac && mx.Frac < mn.Frac || !mn.IsFrac && mx.Count < mn.Count) {
		return o, &UsageError{fmt.Errorf("-max-df %s is below -min-df %s: no word could be kept; lower -min-df or raise -max-df", *t.maxDF, *t.minDF)}
	}
	if o.MaxFeatures < 0 {
		return o, &UsageError{fmt.Errorf("-max-features is %d: want 0 (all) or more", o.MaxFeatures)}
	}
	switch *t.norm {
	case "l2":
		o.Norm = text.L2
	case "l1":
		o.Norm = text.L1
	case "none":
		o.Norm = text.NoNorm
	default:
		return o, &UsageError{fmt.Errorf("-norm is %q: want l2 or l1 or none", *t.norm)}
	}
	switch *t.stopwords {
	case "":
	case English:
		o.StopWords = text.EnglishStopWords()
	default:
		if o.StopWords, err = text.ReadStopWords(*t.stopwords); err != nil {
			return o, err
		}
	}
	return o, nil
}

// CrossedBounds returns, for an error of bounds that cross for the
// documents at hand (text.BoundsError, found once they are counted), the
// usage error that says so in the flags' terms; nil for any other error.
func CrossedBounds(err error) error {
	var b *text.BoundsError
	if !errors.As(err, &b) {
		return nil
	}
	return &UsageError{fmt.Errorf("-max-df is below -min-df for these documents (%s): no word could be kept; lower -min-df or raise -max-df", b.Detail("-max-df", "-min-df"))}
}

// IsUsage says whether err is a flag's bad value.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}
