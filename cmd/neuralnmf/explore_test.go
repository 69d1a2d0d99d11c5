package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// groupDocs writes n JSON Lines documents into path, each of words of one
// of groups groups (ten words a group), with ids d0, d1, ….
func groupDocs(t *testing.T, path string, n, groups int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for d := 0; d < n; d++ {
		g := d % groups
		var ws []string
		for range 8 + r.IntN(8) {
			ws = append(ws, fmt.Sprintf("g%dw%d", g, r.IntN(10)))
		}
		ws = append(ws, fmt.Sprintf("common%d", r.IntN(3)))
		fmt.Fprintf(&b, `{"id":"d%d","body":%q}`+"\n", d, strings.Join(ws, " "))
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

// explore writes a page whose data holds every layer's topics, the
// documents of the sample with their texts, and each topic's words; it
// refuses an output that is its input, and bad flags.
func TestExplore(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	groupDocs(t, p("docs.jsonl"), 60, 4, 1)
	code, _, errOut := cli(t, "fit", "-text", p("docs.jsonl"), "-field", "body", "-ranks", "4,2", "-o", p("m.nnmf"), "-quiet")
	require.Equal(t, 0, code, errOut)
	code, out, errOut := cli(t, "explore", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-id-field", "id", "-docs", "20", "-o", p("e.html"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "2 layers, 6 topics")
	data := pageData(t, p("e.html"))
	require.Len(t, data.Layers, 2)
	require.Len(t, data.Layers[0].Topics, 4)
	for _, d := range data.Docs {
		require.Regexp(t, `^d\d+$`, d.ID)
		require.NotEmpty(t, d.Text, "the page holds the document's text")
		require.Len(t, d.Path, 2)
	}
	// A first-layer topic's top words are one group's.
	for _, tp := range data.Layers[0].Topics {
		g := tp.Words[0].W[:2]
		for _, w := range tp.Words[:5] {
			require.True(t, strings.HasPrefix(w.W, g) || strings.HasPrefix(w.W, "common"), "topic %s: %v", tp.ID, tp.Words)
		}
	}

	code, _, errOut = cli(t, "explore", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-o", p("docs.jsonl"))
	require.Equal(t, 2, code, "-o is the input: %s", errOut)
	code, _, _ = cli(t, "explore", "-model", p("m.nnmf"), "-o", p("f.html"))
	require.Equal(t, 2, code, "no documents")
	code, _, _ = cli(t, "explore", "-model", p("m.nnmf"), "-text", p("docs.jsonl"), "-field", "body", "-docs", "0", "-o", p("f.html"))
	require.Equal(t, 2, code)
	code, _, errOut = cli(t, "explore", "-model", p("m.nnmf"), "-x", p("docs.jsonl"), "-id-field", "id", "-o", p("f.html"))
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "applies to -text documents only", "a document flag with a matrix is refused, not ignored")
	_, err := os.Stat(p("f.html"))
	require.True(t, os.IsNotExist(err))
}

// pageJSON is the part of the page's data the tests read.
type pageJSON struct {
	Layers []struct {
		Topics []struct {
			ID    string `json:"id"`
			Words []struct {
				W string `json:"w"`
			} `json:"words"`
			Docs []int `json:"docs"`
		} `json:"topics"`
	} `json:"layers"`
	Docs []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
		Path []struct {
			ID string `json:"id"`
		} `json:"path"`
	} `json:"docs"`
}

func pageData(t *testing.T, path string) pageJSON {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)<script id="data" type="application/json">(.*?)</script>`).FindSubmatch(b)
	require.NotNil(t, m)
	var d pageJSON
	require.NoError(t, json.Unmarshal(m[1], &d))
	return d
}

// TestExploreChromium renders every view of explore's page in headless
// Chromium (Debian's chromium: apt-get install chromium) and checks its
// DOM and that the page logs nothing to the console (no error), on 20
// Newsgroups (when ../shared is there) and on generated documents.
// Opt-in: NEURALNMF_CHROMIUM=1; with NEURALNMF_SCREENSHOTS=DIR it also
// writes a 1400-pixel-wide screenshot of each view into DIR.
//
//	NEURALNMF_CHROMIUM=1 go test ./cmd/neuralnmf -run TestExploreChromium -v
func TestExploreChromium(t *testing.T) {
	if os.Getenv("NEURALNMF_CHROMIUM") == "" {
		t.Skip("set NEURALNMF_CHROMIUM=1 to render the explorer in headless Chromium")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (apt-get install chromium): %v", err)
	}
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	corpora := []struct {
		name, docs string
		fit        []string
		field      string
	}{{"generated", p("gen.jsonl"), []string{"-ranks", "6,3"}, "body"}}
	groupDocs(t, p("gen.jsonl"), 600, 6, 2)
	news := "../../../shared/data/20news/raw/train_10groups.jsonl.gz"
	if _, err := os.Stat(news); err == nil {
		corpora = append(corpora, struct {
			name, docs string
			fit        []string
			field      string
		}{"20news", news, []string{"-newsgroups", "-stopwords", "english", "-min-df", "5", "-max-df", "0.5", "-ranks", "20,10"}, "text"})
	} else {
		t.Logf("20 Newsgroups not available: %v", err)
	}
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			model, page := p(c.name+".nnmf"), p(c.name+".html")
			code, _, errOut := cli(t, append([]string{"fit", "-text", c.docs, "-field", c.field, "-o", model, "-quiet"}, c.fit...)...)
			require.Equal(t, 0, code, errOut)
			code, _, errOut = cli(t, "explore", "-model", model, "-text", c.docs, "-field", c.field, "-docs", "300", "-o", page)
			require.Equal(t, 0, code, errOut)
			data := pageData(t, page)
			last := data.Layers[len(data.Layers)-1].Topics[0]
			first := data.Layers[0].Topics[0]
			doc := data.Docs[0]
			word := first.Words[0].W
			views := []struct{ name, fragment, want string }{
				{"layer", "", fmt.Sprintf("Layer %d: %d topics", len(data.Layers), len(data.Layers[len(data.Layers)-1].Topics))},
				{"topic", "topic=" + last.ID, "Topic " + last.ID},
				{"topic1", "topic=" + first.ID, "Most representative documents"},
				{"word", "word=" + word, "rank 1"},
				{"doc", "doc=" + doc.ID, "Its path through the layers"},
				{"docs", "docs", fmt.Sprintf("%d documents", len(data.Docs))},
			}
			for _, v := range views {
				url := "file://" + page + "#" + v.fragment
				cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
					"--window-size=1400,900", "--dump-dom", url)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				require.NoError(t, cmd.Run(), "%s", errb.String())
				dom := out.String()
				require.Contains(t, dom, `data-view="`, "%s: the script drew no view", v.name)
				require.Contains(t, dom, v.want, "%s", v.name)
				for _, l := range strings.Split(errb.String(), "\n") {
					require.NotContains(t, l, "CONSOLE", "%s: the page logged to the console", v.name)
				}
				if shots := os.Getenv("NEURALNMF_SCREENSHOTS"); shots != "" {
					require.NoError(t, os.MkdirAll(shots, 0o755))
					abs, err := filepath.Abs(filepath.Join(shots, fmt.Sprintf("explore-%s-%s.png", c.name, v.name)))
					require.NoError(t, err)
					shot := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
						"--window-size=1400,900", "--screenshot="+abs, url)
					b, err := shot.CombinedOutput()
					require.NoError(t, err, "%s", b)
				}
			}
			// The topic view lists the topic's words, linked for the search.
			cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://"+page+"#topic="+first.ID)
			dom, err := cmd.Output()
			require.NoError(t, err)
			for _, w := range first.Words[:5] {
				require.Contains(t, string(dom), `href="#word=`+w.W+`"`)
			}
		})
	}
}
