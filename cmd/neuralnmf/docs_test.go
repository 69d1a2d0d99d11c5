package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/tensor"
)

// docCommand is one neuralnmf command line found in a Markdown file.
type docCommand struct {
	file string
	line int
	args []string // after "neuralnmf"
}

// docCommands returns the neuralnmf command lines of the sh code blocks of
// a Markdown file: lines continued with a backslash are joined, comments
// and shell redirections dropped.
func docCommands(t *testing.T, path string) []docCommand {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var cmds []docCommand
	inSh, joined, start := false, "", 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inSh = !inSh && (line == "```sh" || line == "```bash")
			continue
		}
		if !inSh {
			continue
		}
		if joined == "" {
			start = n
		}
		if strings.HasSuffix(line, `\`) {
			joined += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		joined += line
		cmds = append(cmds, commandsOf(path, start, joined)...)
		joined = ""
	}
	require.NoError(t, sc.Err())
	return cmds
}

var shellSeparator = regexp.MustCompile(`\s(?:&&|\|\||;|\|)\s`)

// commandsOf returns the neuralnmf commands of one shell line.
func commandsOf(file string, line int, s string) []docCommand {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(strings.TrimSpace(s), "#") {
		return nil
	}
	var out []docCommand
	for _, part := range shellSeparator.Split(s, -1) {
		fields := strings.Fields(part)
		for i, f := range fields {
			if f == "neuralnmf" || strings.HasSuffix(f, "/neuralnmf") || f == "./cmd/neuralnmf" {
				if f == "./cmd/neuralnmf" && (i == 0 || fields[i-1] != "run") {
					break
				}
				var args []string
				for _, a := range fields[i+1:] {
					if strings.HasPrefix(a, ">") || strings.HasPrefix(a, "2>") || a == "<" {
						break
					}
					args = append(args, a)
				}
				if len(args) > 0 {
					out = append(out, docCommand{file, line, args})
				}
				break
			}
		}
	}
	return out
}

var helpFlag = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9-]*)`)

// Every neuralnmf command in README.md and docs/ names a command that
// exists and only flags that command defines (read from its --help), so
// that the documentation cannot drift from the flag sets; README stays a
// front page.
func TestDocumentedCommandsParse(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	files = append([]string{"../../README.md"}, files...)
	require.Greater(t, len(files), 5, "README.md and docs/")
	known := map[string]bool{}
	for _, c := range commands() {
		known[c.name] = true
	}
	flags := map[string]map[string]bool{}
	flagsOf := func(cmd []string) map[string]bool {
		key := strings.Join(cmd, " ")
		if f, ok := flags[key]; ok {
			return f
		}
		_, _, errOut := cli(t, append(cmd, "--help")...)
		f := map[string]bool{}
		for _, m := range helpFlag.FindAllStringSubmatch(errOut, -1) {
			f[m[1]] = true
		}
		flags[key] = f
		return f
	}
	total := 0
	for _, file := range files {
		for _, c := range docCommands(t, file) {
			total++
			where := filepath.Base(file) + ":" + strconv.Itoa(c.line) + ": neuralnmf " + strings.Join(c.args, " ")
			sub := c.args[0]
			require.True(t, known[sub], "%s: no command %q", where, sub)
			cmd, rest := []string{sub}, c.args[1:]
			if sub == "experiment" && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
				cmd, rest = append(cmd, rest[0]), rest[1:]
			}
			defined := flagsOf(cmd)
			require.NotEmpty(t, defined, "%s: no flags read from --help", where)
			for _, a := range rest {
				if !strings.HasPrefix(a, "-") || a == "-" || (len(a) > 1 && (a[1] >= '0' && a[1] <= '9' || a[1] == '.')) {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
				require.True(t, defined[name], "%s: %s has no flag -%s", where, strings.Join(cmd, " "), name)
			}
		}
	}
	require.Greater(t, total, 30, "the commands of README.md and docs/ were found")

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	lines := strings.Count(string(readme), "\n")
	require.LessOrEqual(t, lines, 160, "README.md is a front page: move detail to docs/")
	require.True(t, strings.HasPrefix(string(readme), "# neuralnmf\n\n```sh\ngo run ./cmd/neuralnmf demo"), "README starts with the two commands")
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	require.Contains(t, string(readme), "go test ./...")
	require.Contains(t, string(ci), "go test ./...", "CI runs README's test command")
}

// The command-line quickstart of README runs as written, command by
// command, in a folder holding a docs.jsonl and a new.jsonl of generated
// documents with the members it names (text, topic, id).
func TestReadmeQuickstartRuns(t *testing.T) {
	readme, err := filepath.Abs("../../README.md")
	require.NoError(t, err)
	var quick []docCommand
	for _, c := range docCommands(t, readme) {
		if c.args[0] != "demo" {
			quick = append(quick, c)
		}
	}
	require.GreaterOrEqual(t, len(quick), 5, "text in, topics, predict, report, export")
	t.Chdir(t.TempDir())
	words := [][]string{
		{"engine", "wheel", "brake", "motor", "tyre", "gear", "clutch", "piston", "axle", "diesel", "fuel", "garage"},
		{"planet", "orbit", "rocket", "launch", "moon", "star", "comet", "galaxy", "nasa", "shuttle", "telescope", "asteroid"},
		{"recipe", "flour", "butter", "oven", "sugar", "bake", "dough", "yeast", "cream", "whisk", "pastry", "vanilla"},
		{"guitar", "chord", "melody", "drum", "piano", "tempo", "rhythm", "violin", "concert", "album", "lyrics", "bass"},
	}
	topics := []string{"cars", "space", "baking", "music"}
	write := func(name string, n int, seed uint64, labels bool) {
		rng := tensor.NewRand(seed)
		var b strings.Builder
		for d := range n {
			c := d % 4
			var body []string
			for range 8 {
				body = append(body, words[c][rng.IntN(12)])
			}
			body = append(body, words[rng.IntN(4)][rng.IntN(12)]) // a stray word
			topic := topics[c]
			if !labels || d%3 == 2 {
				topic = ""
			}
			fmt.Fprintf(&b, `{"id":"%s-%d","text":%q,"topic":%q}`+"\n", name, d+1, strings.Join(body, " "), topic)
		}
		require.NoError(t, os.WriteFile(name+".jsonl", []byte(b.String()), 0o644))
	}
	write("docs", 120, 1, true)
	write("new", 40, 2, false)
	for _, c := range quick {
		code, _, errOut := cli(t, c.args...)
		require.Equal(t, 0, code, "README line %d: neuralnmf %s: %s", c.line, strings.Join(c.args, " "), errOut)
	}
	for _, out := range []string{"m.nnmf", "pred.csv", "m.html", "a2.csv"} {
		_, err := os.Stat(out)
		require.NoError(t, err, "README's quickstart writes %s", out)
	}
}
