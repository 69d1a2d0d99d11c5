package report_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestReportLayoutInChromium measures, in a 1,400-px window, that the page
// of a 20-class model does not scroll sideways and that every heatmap is
// shown at its own size, so its 12-px text is not scaled below 10 px.
func TestReportLayoutInChromium(t *testing.T) {
	if os.Getenv("NEURALNMF_BROWSER") == "" {
		t.Skip("set NEURALNMF_BROWSER=1 (needs chromium) to render the report in headless Chromium")
	}
	page := twentyClassPage(t)
	// A probe appended to the test's copy (the report has no scripts)
	// writes what the layout measured into the DOM.
	probe := `<script>window.onload=function(){var imgs=[].slice.call(document.images);` +
		`var scaled=imgs.filter(function(i){return i.clientWidth!==i.naturalWidth}).length;` +
		`var c=document.querySelector("table.confusion").getBoundingClientRect();` +
		`var p=document.createElement("pre");p.id="probe";p.textContent="scroll="+document.documentElement.scrollWidth+" client="+document.documentElement.clientWidth+" confusion="+Math.round(c.right)+" images="+imgs.length+" scaled="+scaled;document.body.appendChild(p);};</script>`
	dir := t.TempDir()
	in := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(in, []byte(strings.Replace(page, "</body>", probe+"</body>", 1)), 0o644))
	out, err := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", "file://"+in).Output()
	require.NoError(t, err)
	var scroll, client, confusion, images, scaled int
	m := regexp.MustCompile(`scroll=\d+ client=\d+ confusion=\d+ images=\d+ scaled=\d+`).FindString(string(out))
	require.NotEmpty(t, m, "the probe ran")
	_, err = fmt.Sscanf(m, "scroll=%d client=%d confusion=%d images=%d scaled=%d", &scroll, &client, &confusion, &images, &scaled)
	require.NoError(t, err)
	t.Logf("%s", m)
	require.LessOrEqual(t, scroll, client, "no horizontal scrolling")
	require.LessOrEqual(t, confusion, 1400, "the confusion matrix fits the window")
	require.Equal(t, 2, images)
	require.Zero(t, scaled, "heatmaps at their own size")
}
