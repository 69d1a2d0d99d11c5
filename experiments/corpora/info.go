package corpora

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Info builds the "info" corpus from the GNU Info manuals under root
// (normally /usr/share/info): one document per node, labelled by the
// manual it belongs to. Menus, the Top node, index nodes and the tag
// tables are skipped, as are nodes of fewer than 30 words; manuals with
// fewer than 40 such nodes are dropped.
func Info(root string) (*Corpus, error) {
	files, err := filepath.Glob(filepath.Join(root, "*.info*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var docs []Doc
	for _, path := range files {
		b, err := readMaybeGzip(path)
		if err != nil {
			return nil, err
		}
		for _, part := range strings.Split(string(b), "\x1f") {
			header, body, ok := strings.Cut(strings.TrimLeft(part, "\n"), "\n")
			if !ok || !strings.HasPrefix(header, "File: ") {
				continue
			}
			manual, node := infoField(header, "File:"), infoField(header, "Node:")
			manual = strings.TrimSuffix(manual, ".info")
			if node == "" || node == "Top" || strings.Contains(strings.ToLower(node), "index") {
				continue
			}
			t := squash(infoBody(body))
			if words(t) < 30 {
				continue
			}
			docs = append(docs, Doc{ID: "info:" + manual + ":" + node, Label: manual, Text: t})
		}
	}
	return &Corpus{Name: "info", Docs: balance(dedupe(docs), 40, 1000)}, nil
}

// infoField returns the value of key in an Info node header such as
// "File: sed.info,  Node: Overview,  Next: Invoking sed,  Up: Top".
func infoField(header, key string) string {
	_, v, ok := strings.Cut(header, key)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, ",")
	return strings.TrimSpace(v)
}

// infoBody drops a node's menu entries and underlines.
func infoBody(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "* ") || t == "* Menu:" || strings.Trim(t, "=*-.") == "" {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func readMaybeGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		r = z
	}
	return io.ReadAll(r)
}
