package corpora

import (
	"archive/zip"
	"fmt"
	"io"
	"regexp"
	"strings"
)

var (
	javadocComment = regexp.MustCompile(`(?s)/\*\*(.*?)\*/`)
	javadocLink    = regexp.MustCompile(`\{@(?:link|linkplain|code|literal|value|index|systemProperty)\s*([^{}]*)\}`)
	javadocTag     = regexp.MustCompile(`(?m)@(param|return|returns|throws|exception|see|since|author|version|serial|serialData|serialField|deprecated|implSpec|implNote|apiNote|spec|jls|jvms|inheritDoc|hidden)\b`)
	htmlTag        = regexp.MustCompile(`<[^>]*>|&[a-zA-Z]+;|&#[0-9]+;`)
	starPrefix     = regexp.MustCompile(`(?m)^\s*\*`)
)

// javaArea maps a package (java.util.concurrent.atomic) to its class, or
// "" for packages outside the java.* and javax.* API.
func javaArea(pkg string) string {
	p := strings.Split(pkg, ".")
	if len(p) < 2 || (p[0] != "java" && p[0] != "javax") {
		return ""
	}
	switch {
	case pkg == "java.util.concurrent" || strings.HasPrefix(pkg, "java.util.concurrent."):
		return "concurrency"
	case p[1] == "nio" || p[1] == "io":
		return "io-nio"
	case p[1] == "security" || p[1] == "crypto" || p[1] == "net" && len(p) > 2 && p[2] == "ssl":
		return "security"
	case p[1] == "sql":
		return "sql"
	case p[1] == "swing":
		return "swing"
	case p[1] == "imageio" || p[0] == "java" && p[1] == "awt" && len(p) > 2 && (p[2] == "image" || p[2] == "color"):
		return "imaging"
	case p[1] == "print" || p[0] == "java" && p[1] == "awt" && len(p) > 2 && p[2] == "print":
		return "printing"
	case p[1] == "lang" && p[0] == "javax" || p[1] == "annotation" || p[1] == "tools":
		return "compiler-api"
	}
	switch p[1] {
	case "lang", "util", "net", "time", "text", "awt", "xml", "beans", "management", "naming", "sound", "rmi":
		return p[1]
	}
	return ""
}

// javadocText returns the prose of a Javadoc comment body: leading stars,
// HTML and block tags' names dropped, inline tags replaced by their text.
func javadocText(c string) string {
	c = starPrefix.ReplaceAllString(c, " ")
	for range 3 { // nested inline tags
		c = javadocLink.ReplaceAllStringFunc(c, func(m string) string {
			in := javadocLink.FindStringSubmatch(m)[1]
			if sig, label, ok := strings.Cut(strings.TrimSpace(in), " "); ok && !strings.ContainsAny(sig, "(") {
				return label
			}
			return strings.NewReplacer("#", " ", ".", " ").Replace(in)
		})
	}
	c = htmlTag.ReplaceAllString(c, " ")
	c = javadocTag.ReplaceAllString(c, " ")
	return squash(c)
}

// Javadoc builds the "javadoc" corpus from a JDK's lib/src.zip (Debian:
// /usr/lib/jvm/openjdk-17/src.zip from openjdk-17-source): one document
// per Javadoc comment of at least 12 words in the java.* and javax.*
// packages, labelled by javaArea. Areas with fewer than 300 comments are
// dropped and the others capped at 800.
func Javadoc(srcZip string) (*Corpus, error) {
	z, err := zip.OpenReader(srcZip)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	var docs []Doc
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".java") {
			continue
		}
		// module/java/util/List.java → package java.util
		parts := strings.Split(f.Name, "/")
		if len(parts) < 3 {
			continue
		}
		pkg := strings.Join(parts[1:len(parts)-1], ".")
		area := javaArea(pkg)
		if area == "" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", srcZip, f.Name, err)
		}
		class := strings.TrimSuffix(parts[len(parts)-1], ".java")
		for i, m := range javadocComment.FindAllStringSubmatch(string(b), -1) {
			t := javadocText(m[1])
			if words(t) < 12 {
				continue
			}
			docs = append(docs, Doc{ID: fmt.Sprintf("java:%s.%s#%d", pkg, class, i), Label: area, Text: t})
		}
	}
	return &Corpus{Name: "javadoc", Docs: balance(dedupe(docs), 300, 800)}, nil
}
