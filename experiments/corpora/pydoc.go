package corpora

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// pyDocstring matches a def or class header (its arguments may span lines)
// and the triple-quoted docstring that opens its body.
var pyDocstring = regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+def|def|class)[ \t]+(\w+)[ \t]*(?:\((?s:.*?)\))?[ \t]*(?:->[^:\n]*)?:[ \t]*\n[ \t]*[rRuU]?(?:"""((?s:.*?))"""|'''((?s:.*?))''')`)

// pyArea maps a top-level module or package of Python's standard library to
// its class, or "" for modules outside every class. The classes are areas
// of the library's own documentation (its "library reference" chapters),
// with small neighbours merged so that every class has enough docstrings.
func pyArea(top string) string {
	switch top {
	case "asyncio", "asynchat", "asyncore", "selectors":
		return "asyncio"
	case "email", "mailbox", "smtplib", "imaplib", "poplib", "mimetypes", "quopri", "mailcap":
		return "email"
	case "http", "urllib", "xmlrpc", "socketserver", "ftplib", "ipaddress", "socket", "ssl", "wsgiref", "cgi", "telnetlib", "nntplib", "webbrowser":
		return "internet"
	case "tkinter", "turtle", "turtledemo":
		return "tkinter"
	case "idlelib":
		return "idle"
	case "xml", "html":
		return "markup"
	case "unittest", "doctest", "pdb", "bdb", "trace", "profile", "cProfile", "pstats", "timeit":
		return "testing-debugging"
	case "multiprocessing", "concurrent", "threading", "queue", "sched", "subprocess", "_threading_local":
		return "concurrency"
	case "importlib", "pkgutil", "modulefinder", "zipimport", "runpy", "distutils", "ensurepip", "venv", "sysconfig", "site":
		return "importing-packaging"
	case "lib2to3", "ast", "tokenize", "dis", "inspect", "symtable", "pyclbr", "codeop", "code", "compileall", "py_compile", "pickletools", "tabnanny":
		return "language"
	case "json", "csv", "pickle", "shelve", "dbm", "sqlite3", "configparser", "plistlib", "tomllib", "netrc", "copyreg":
		return "data-formats"
	case "decimal", "_pydecimal", "fractions", "statistics", "random", "numbers", "colorsys":
		return "numbers"
	case "os", "pathlib", "shutil", "tempfile", "glob", "fnmatch", "filecmp", "zipfile", "tarfile", "gzip", "bz2", "lzma", "_pyio", "io", "fileinput", "stat", "genericpath", "posixpath", "ntpath", "_compression":
		return "files"
	case "ctypes":
		return "ctypes"
	case "logging":
		return "logging"
	case "typing", "enum", "collections", "_collections_abc", "contextlib", "functools", "abc", "dataclasses", "operator", "copy", "types", "weakref", "_weakrefset", "_py_abc":
		return "types-functional"
	case "argparse", "optparse", "getopt", "cmd", "curses", "getpass", "shlex":
		return "command-line"
	}
	return ""
}

// pyDocText returns the prose of a docstring: interactive examples (lines
// from >>> or ... on) and their output dropped, whitespace squashed.
func pyDocText(s string) string {
	var keep []string
	example := false
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, ">>>") || strings.HasPrefix(t, "..."):
			example = true
			continue
		case t == "":
			example = false
		case example:
			continue
		}
		keep = append(keep, t)
	}
	return squash(strings.Join(keep, " "))
}

// PyDoc builds the "pydoc" corpus from a Python standard library tree
// (Debian: /usr/lib/python3.11 from libpython3.11-minimal and
// libpython3.11-stdlib): one document per docstring of a function, method
// or class of at least 8 words, labelled by pyArea of its top-level
// module. Tests (test, tests, idle_test), site-packages and dist-packages
// are skipped. Areas with fewer than 150 docstrings are dropped and the
// others capped at 700 (the library is smaller than the JDK's). Docstrings are short: most are a sentence or two.
func PyDoc(root string) (*Corpus, error) {
	if _, err := os.Stat(filepath.Join(root, "argparse.py")); err != nil {
		return nil, fmt.Errorf("%s is not a Python standard library (no argparse.py): %w", root, err)
	}
	var docs []Doc
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			switch {
			case path == root:
			case name == "test" || name == "tests" || name == "idle_test" || name == "site-packages" || name == "dist-packages" || name == "__pycache__" || strings.HasPrefix(name, "config-"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".py") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		area := pyArea(strings.TrimSuffix(top, ".py"))
		if area == "" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, m := range pyDocstring.FindAllStringSubmatch(string(b), -1) {
			t := pyDocText(m[2] + m[3])
			if words(t) < 8 {
				continue
			}
			docs = append(docs, Doc{ID: fmt.Sprintf("py:%s:%s#%d", filepath.ToSlash(rel), m[1], i), Label: area, Text: t})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Corpus{Name: "pydoc", Docs: balance(dedupe(docs), 150, 700)}, nil
}
