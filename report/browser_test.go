package report_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/neuralnmf/neuralnmf/report"
)

// Browser tests are opt-in: NEURALNMF_BROWSER=1 with Debian's chromium
// installed (apt-get install chromium). They render pages in headless
// Chromium and check what it drew and logged.

// render opens page in headless Chromium and returns the screenshot and
// Chromium's log.
func render(t *testing.T, page string) (image.Image, string) {
	dir := t.TempDir()
	in := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(in, []byte(page), 0o644))
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--window-size=1280,2000", "--screenshot="+shot, "file://"+in)
	var log bytes.Buffer
	cmd.Stderr = &log
	require.NoError(t, cmd.Run(), log.String())
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img, log.String()
}

// consoleLines returns the page's console messages in Chromium's log.
func consoleLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, l)
		}
	}
	return out
}

// colours counts the distinct colours of img (up to 1000).
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func TestReportRendersInChromium(t *testing.T) {
	if os.Getenv("NEURALNMF_BROWSER") == "" {
		t.Skip("set NEURALNMF_BROWSER=1 (needs chromium) to render the report in headless Chromium")
	}
	// The check must catch a broken page: a script error is logged.
	plain, log := render(t, `<!DOCTYPE html><html><body><p>x</p><script>undefinedFn();</script></body></html>`)
	require.NotEmpty(t, consoleLines(log), "the console check sees errors")
	require.Less(t, colours(plain), 50, "a page of one word stays below the colour threshold")

	m, vocab, labels := model(t)
	var buf bytes.Buffer
	require.NoError(t, report.Write(&buf, report.Input{Model: m, Title: "browser test", Vocab: vocab, Labels: labels}))
	img, log := render(t, buf.String())
	require.Empty(t, consoleLines(log), "console messages while rendering the report")
	require.Equal(t, image.Rect(0, 0, 1280, 2000), img.Bounds())
	require.Greater(t, colours(img), 50, "the page drew text, the tree and the heatmaps, not a blank screen")
}
