package corpora

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// roffEscape matches the roff escapes that carry no words: fonts, sizes,
// named characters, strings, zero-width and spacing escapes.
var roffEscape = regexp.MustCompile(`\\+([fn*](\[[^\]]*\]|\(..|.)|s[-+]?[0-9]+|\(..|\[[^\]]*\]|[wbhvlLoDxXNZ]'[^']*'|\$.|[&|^,/%:{}])`)

// roffText returns the words of a roff page: comment lines and the title
// line (which names the section) dropped, macro names dropped and their
// arguments kept, escapes removed. It returns "" for a page that is only a
// .so link to another page.
func roffText(r io.Reader, limit int) string {
	var b strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	n := 0
	inDef := false
	for sc.Scan() && n < limit {
		line := sc.Text()
		if inDef { // the body of a macro definition
			inDef = strings.TrimSpace(line) != ".."
			continue
		}
		if strings.HasPrefix(line, `.\"`) || strings.HasPrefix(line, `'\"`) || strings.HasPrefix(line, `\"`) {
			continue
		}
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			macro, args, _ := strings.Cut(line[1:], " ")
			switch strings.TrimSpace(macro) {
			case "so":
				if n == 0 {
					return ""
				}
				continue
			case "de", "de1", "am", "am1":
				inDef = true
				continue
			case "TH", "Dt", "Dd", "Os", "ds", "nr", "if", "ie", "el", "ig", "tr", "ft", "ps", "ta", "ti", "in", "ll", "ne", "sp", "na", "ad", "hy", "nh":
				continue
			}
			line = args
		}
		if i := strings.Index(line, `\"`); i >= 0 {
			line = line[:i]
		}
		line = roffEscape.ReplaceAllString(line, "")
		line = strings.NewReplacer(`\-`, "-", `\e`, `\`, `\ `, " ", `\(em`, " ", `"`, "").Replace(line)
		n += words(line)
		b.WriteString(line)
		b.WriteByte(' ')
	}
	return squash(b.String())
}

// Man builds the "man" corpus from the manual pages under root (normally
// /usr/share/man): one document per page of sections 1, 2, 3, 5, 7 and 8
// (the English pages at the top level, not translations), its first 3,000
// words, labelled by its section. The Google Cloud SDK's generated pages
// (gcloud*) are left out. Pages that are links (.so) or have fewer
// than 30 words are skipped; sections are capped at 1,000 pages (the
// largest, 1, has thousands on a typical machine) and dropped below 150.
func Man(root string) (*Corpus, error) {
	docs, err := manDocs(root)
	if err != nil {
		return nil, err
	}
	return &Corpus{Name: "man", Docs: balance(dedupe(docs), 150, 1000)}, nil
}

// ManWhole is Man without the caps: every page of those sections with 30
// words or more, the "man-whole" corpus of experiments/scale's validation
// (its labels are unbalanced; the scale suite does not use them).
func ManWhole(root string) (*Corpus, error) {
	docs, err := manDocs(root)
	if err != nil {
		return nil, err
	}
	return &Corpus{Name: "man-whole", Docs: byID(dedupe(docs))}, nil
}

// manDocs reads Man's pages, uncapped.
func manDocs(root string) ([]Doc, error) {
	var docs []Doc
	for _, sec := range []string{"1", "2", "3", "5", "7", "8"} {
		dir := filepath.Join(root, "man"+sec)
		names, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		var files []string
		for _, e := range names {
			// Google Cloud SDK's generated pages (gcloud_*) are thousands
			// on some machines; one program would make the section.
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), "gcloud") {
				files = append(files, e.Name())
			}
		}
		sort.Strings(files)
		for _, name := range files {
			t, err := readRoff(filepath.Join(dir, name))
			if err != nil || words(t) < 30 {
				continue
			}
			docs = append(docs, Doc{ID: "man:" + strings.TrimSuffix(name, ".gz"), Label: "section-" + sec, Text: t})
		}
	}
	return docs, nil
}

func readRoff(path string) (string, error) {
	b, err := readMaybeGzip(path)
	if err != nil {
		return "", err
	}
	return roffText(bytes.NewReader(b), 3000), nil
}
