package text_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/text"
)

func TestSourceExtraFields(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "d.jsonl")
	require.NoError(t, os.WriteFile(jsonl, []byte(`{"text":"a b","cat":"sport","id":7}
{"text":"c d","cat":null}
{"text":"e f","id":"x-9"}
`), 0o644))
	csvPath := filepath.Join(dir, "d.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte("id,text,cat\n1,a b,sport\n2,c d,\n"), 0o644))
	read := func(src text.Source) ([]map[string]string, error) {
		var out []map[string]string
		for d, err := range src.Documents() {
			if err != nil {
				return nil, err
			}
			out = append(out, d.Extra)
		}
		return out, nil
	}
	got, err := read(text.Source{Path: jsonl, Extra: []string{"cat", "id"}})
	require.NoError(t, err)
	require.Equal(t, []map[string]string{{"cat": "sport", "id": "7"}, {"cat": ""}, {"id": "x-9"}}, got)
	got, err = read(text.Source{Path: csvPath, Extra: []string{"cat", "id"}})
	require.NoError(t, err)
	require.Equal(t, []map[string]string{{"cat": "sport", "id": "1"}, {"cat": "", "id": "2"}}, got)

	_, err = read(text.Source{Path: csvPath, Extra: []string{"label"}})
	require.ErrorContains(t, err, `no column named "label"`)
	require.NoError(t, os.WriteFile(jsonl, []byte(`{"text":"a","cat":["x"]}`+"\n"), 0o644))
	_, err = read(text.Source{Path: jsonl, Extra: []string{"cat"}})
	require.ErrorContains(t, err, `member "cat": is an array or object`)
	_, err = read(text.Source{Path: dir, Extra: []string{"cat"}})
	require.ErrorContains(t, err, "has no fields")
}

// A folder's dangling .txt link is named as one, with what to do, not as a
// bare stat error.
func TestDirDanglingLink(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha beta"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "gone.txt"), filepath.Join(dir, "b.txt")))
	var err error
	for _, e := range (text.Source{Path: dir}).Texts() {
		if e != nil {
			err = e
		}
	}
	require.ErrorContains(t, err, filepath.Join(dir, "b.txt")+" is a link to "+filepath.Join(dir, "gone.txt")+", which does not exist: remove the link or restore its file")
}
