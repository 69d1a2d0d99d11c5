// Command build makes the labelled corpora of package corpora from the
// prose on this machine and writes each as DIR/NAME.jsonl.
//
//	go run ./experiments/corpora/build -out /tmp/neuralnmf-corpora
//
// Sources (Debian packages that provide them, for a fresh machine):
//
//	godoc    Go's own source tree, $(go env GOROOT)/src (always present)
//	man      /usr/share/man (manpages, manpages-dev and the man pages of whatever is installed)
//	info     /usr/share/info (coreutils, findutils, gettext, gnupg, sed, wget, diffutils, nettle-dev, bzip2)
//	javadoc  /usr/lib/jvm/openjdk-17/src.zip (openjdk-17-source)
//	pydoc    /usr/lib/python3.11 (libpython3.11-minimal, libpython3.11-stdlib: installed with python3)
//
// man-whole and godoc-whole are man and godoc uncapped; manuals-passages
// is them and info cut into passages of 60 words and
// manuals-passages-quarter one in four of those, experiments/scale's
// validation corpora of many short documents (not a labelled corpus: its
// labels are the pages' sections, manuals and areas, mixed).
//
// The man and info corpora depend on what is installed, so they differ
// between machines; the report of experiments/semisup prints each
// corpus's size and classes so a reader can tell.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/neuralnmf/neuralnmf/experiments/corpora"
)

func main() {
	out := flag.String("out", "", "directory to write NAME.jsonl into (required)")
	only := flag.String("only", "", "comma-separated corpora to build (default: all)")
	goroot := flag.String("goroot", goRoot(), "Go tree for godoc (default: go env GOROOT)")
	man := flag.String("man", "/usr/share/man", "manual pages for man")
	info := flag.String("info", "/usr/share/info", "Info manuals for info")
	jdk := flag.String("jdk-src", "/usr/lib/jvm/openjdk-17/src.zip", "JDK sources for javadoc (Debian: openjdk-17-source)")
	python := flag.String("python", "/usr/lib/python3.11", "Python standard library for pydoc (Debian: libpython3.11-stdlib)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "build: -out DIR is required")
		os.Exit(2)
	}
	manualsPassages := func() (*corpora.Corpus, error) {
		var cs []*corpora.Corpus
		for _, f := range []func() (*corpora.Corpus, error){
			func() (*corpora.Corpus, error) { return corpora.ManWhole(*man) },
			func() (*corpora.Corpus, error) { return corpora.Info(*info) },
			func() (*corpora.Corpus, error) { return corpora.GoDocWhole(*goroot) },
		} {
			c, err := f()
			if err != nil {
				return nil, err
			}
			cs = append(cs, c)
		}
		return corpora.Passages("manuals-passages", 60, cs...), nil
	}
	builders := []struct {
		name  string
		build func() (*corpora.Corpus, error)
	}{
		{"godoc", func() (*corpora.Corpus, error) { return corpora.GoDoc(*goroot) }},
		{"man", func() (*corpora.Corpus, error) { return corpora.Man(*man) }},
		{"info", func() (*corpora.Corpus, error) { return corpora.Info(*info) }},
		{"javadoc", func() (*corpora.Corpus, error) { return corpora.Javadoc(*jdk) }},
		{"pydoc", func() (*corpora.Corpus, error) { return corpora.PyDoc(*python) }},
		{"man-whole", func() (*corpora.Corpus, error) { return corpora.ManWhole(*man) }},
		{"godoc-whole", func() (*corpora.Corpus, error) { return corpora.GoDocWhole(*goroot) }},
		{"manuals-passages", manualsPassages},
		{"manuals-passages-quarter", func() (*corpora.Corpus, error) {
			c, err := manualsPassages()
			if err != nil {
				return nil, err
			}
			return corpora.OneIn(c, "manuals-passages-quarter", 4), nil
		}},
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	status := 0
	for _, b := range builders {
		if len(want) > 0 && !want[b.name] {
			continue
		}
		c, err := b.build()
		if err == nil && len(c.Docs) == 0 {
			err = fmt.Errorf("no documents (is the source installed?)")
		}
		if err == nil {
			err = corpora.Write(*out, c)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "build: %s: %v\n", b.name, err)
			status = 1
			continue
		}
		names, y := c.Classes()
		count := make([]int, len(names))
		for _, k := range y {
			count[k]++
		}
		var parts []string
		for i, n := range names {
			parts = append(parts, fmt.Sprintf("%s %d", n, count[i]))
		}
		sort.Strings(parts)
		fmt.Printf("%-11s %6d documents, %2d classes: %s\n", c.Name, len(c.Docs), len(names), strings.Join(parts, ", "))
	}
	os.Exit(status)
}

// goRoot is `go env GOROOT`, or "" if the go command is not found.
func goRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
