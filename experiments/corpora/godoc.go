package corpora

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
)

// goArea maps a standard-library directory to its class: the first element
// of its import path, with a few small neighbours merged so that every class
// has enough documents.
func goArea(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	switch first {
	case "archive", "compress":
		return "compress"
	case "bufio", "bytes", "io", "strings", "strconv", "unicode", "fmt":
		return "text-io"
	case "html", "text", "regexp":
		return "templates-regexp"
	case "hash", "crypto":
		return "crypto"
	case "sync", "context":
		return "sync"
	case "mime", "net":
		return "net"
	case "os", "path":
		return "os"
	case "reflect", "unsafe", "runtime", "iter", "maps", "slices", "sort", "container", "cmp", "errors", "unique", "weak", "structs", "builtin":
		return "runtime-types"
	}
	return first
}

// GoDoc builds the "godoc" corpus from the Go source tree at goroot/src:
// one document per doc comment of an exported declaration (and per package
// comment) of the standard library outside internal, vendor, cmd and
// testdata, with at least 12 words; labelled by goArea. Areas with fewer
// than 200 documents are dropped and the others capped at 2,000.
func GoDoc(goroot string) (*Corpus, error) {
	docs, err := goDocs(goroot)
	if err != nil {
		return nil, err
	}
	return &Corpus{Name: "godoc", Docs: balance(dedupe(docs), 200, 2000)}, nil
}

// GoDocWhole is GoDoc without the caps: every such doc comment, the
// "godoc-whole" corpus of experiments/scale's validation.
func GoDocWhole(goroot string) (*Corpus, error) {
	docs, err := goDocs(goroot)
	if err != nil {
		return nil, err
	}
	return &Corpus{Name: "godoc-whole", Docs: byID(dedupe(docs))}, nil
}

// goDocs reads GoDoc's comments, uncapped.
func goDocs(goroot string) ([]Doc, error) {
	src := filepath.Join(goroot, "src")
	var docs []Doc
	fset := token.NewFileSet()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if base == "internal" || base == "vendor" || rel == "simd" || base == "testdata" || rel == "cmd" || strings.HasPrefix(base, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil // a file for another toolchain; not prose we need
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		add := func(name string, cg *ast.CommentGroup) {
			if cg == nil {
				return
			}
			t := squash(cg.Text())
			if words(t) < 12 {
				return
			}
			docs = append(docs, Doc{ID: "go:" + dir + "." + name + "@" + filepath.Base(path), Label: goArea(dir), Text: t})
		}
		add("package", f.Doc)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() {
					continue
				}
				name := decl.Name.Name
				if decl.Recv != nil && len(decl.Recv.List) > 0 {
					name = recvName(decl.Recv.List[0].Type) + "." + name
				}
				add(name, decl.Doc)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							add(s.Name.Name, firstComment(s.Doc, decl.Doc))
						}
					case *ast.ValueSpec:
						if len(s.Names) > 0 && s.Names[0].IsExported() {
							add(s.Names[0].Name, firstComment(s.Doc, decl.Doc))
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

func firstComment(cs ...*ast.CommentGroup) *ast.CommentGroup {
	for _, c := range cs {
		if c != nil {
			return c
		}
	}
	return nil
}

// dedupe drops documents whose id or text repeats an earlier one (the same
// comment on per-platform copies of a declaration), keeping the first.
func dedupe(docs []Doc) []Doc {
	seenID, seenText := map[string]bool{}, map[string]bool{}
	out := docs[:0]
	for _, d := range docs {
		if seenID[d.ID] || seenText[d.Text] {
			continue
		}
		seenID[d.ID], seenText[d.Text] = true, true
		out = append(out, d)
	}
	return out
}
