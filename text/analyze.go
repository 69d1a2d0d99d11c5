package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reimplements, character for character, the pieces of Python and
// scikit-learn that decide which tokens a document has: str.lower, the
// token pattern (?u)\b\w\w+\b, str.strip and re's \d, and scikit-learn's
// 20 Newsgroups header, footer and quote stripping.

// isWord reports whether r is a word character of Python's re in Unicode
// mode (\w): a letter or number (str.isalnum) or the underscore. Go's
// regexp \w is ASCII only, so the tokenizer does not use it.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isPySpace reports whether r is whitespace for Python's str.isspace (and
// so for str.strip and str.split without arguments): Go's unicode.IsSpace
// plus the information separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyLower returns s lowercased as Python's str.lower does: the full
// lowercase mapping (U+0130 becomes "i̇", two code points) and the
// Final_Sigma rule (Σ at the end of a word becomes ς).
func pyLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case 'İ':
			b.WriteString("i̇")
		case 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the Σ at byte offset i of s is in Unicode's
// Final_Sigma context: preceded by a cased letter and not followed by one,
// skipping case-ignorable characters on both sides.
func finalSigma(s string, i int) bool {
	j := i
	before := false
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if isCaseIgnorable(r) {
			continue
		}
		before = isCased(r)
		break
	}
	if !before {
		return false
	}
	for j = i + len("Σ"); j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if isCaseIgnorable(r) {
			continue
		}
		return !isCased(r)
	}
	return true
}

// isCased is Unicode's Cased property.
func isCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// isCaseIgnorable is Unicode's Case_Ignorable property: marks, format
// characters, modifier letters and symbols, and the word-internal
// punctuation of Word_Break MidLetter, MidNumLet and Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// appendTokens appends to dst the matches of scikit-learn's default token
// pattern (?u)\b\w\w+\b in s: every maximal run of at least two word
// characters (isWord), in order.
func appendTokens(dst []string, s string) []string {
	start, runes := -1, 0
	for i, r := range s {
		if isWord(r) {
			if start < 0 {
				start, runes = i, 0
			}
			runes++
			continue
		}
		if start >= 0 && runes >= 2 {
			dst = append(dst, s[start:i])
		}
		start = -1
	}
	if start >= 0 && runes >= 2 {
		dst = append(dst, s[start:])
	}
	return dst
}

// removeDigits deletes every decimal digit (Python re's \d in Unicode mode:
// category Nd), as re.sub(r'\d+', ”, s) does.
func removeDigits(s string) string {
	if strings.IndexFunc(s, unicode.IsDigit) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return r
	}, s)
}

// StripNewsgroup removes a Usenet post's headers, signature block and quoted
// lines exactly as scikit-learn's fetch_20newsgroups(remove=('headers',
// 'footers', 'quotes')) does, in that order:
//
//   - headers: everything up to the first blank line ("\n\n"); a post
//     without one becomes empty;
//   - footer: on the whitespace-stripped text, the last line that is empty
//     or only dashes (after stripping whitespace) and everything after it,
//     unless that line is the first (then the text is kept unstripped);
//   - quotes: every line containing "writes in", "writes:", "wrote:",
//     "says:" or "said:", or starting with "In article", "Quoted from",
//     "|" or ">".
func StripNewsgroup(post string) string {
	return stripQuotes(stripFooter(stripHeader(post)))
}

func stripHeader(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return s[i+2:]
	}
	return ""
}

func stripFooter(s string) string {
	lines := strings.Split(strings.TrimFunc(s, isPySpace), "\n")
	n := len(lines) - 1
	for ; n >= 0; n-- {
		if strings.Trim(strings.TrimFunc(lines[n], isPySpace), "-") == "" {
			break
		}
	}
	// Python's loop variable stays at 0 when no line matched.
	if n > 0 {
		return strings.Join(lines[:n], "\n")
	}
	return s
}

func stripQuotes(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !isQuote(l) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

func isQuote(l string) bool {
	for _, sub := range []string{"writes in", "writes:", "wrote:", "says:", "said:"} {
		if strings.Contains(l, sub) {
			return true
		}
	}
	for _, pre := range []string{"In article", "Quoted from", "|", ">"} {
		if strings.HasPrefix(l, pre) {
			return true
		}
	}
	return false
}
