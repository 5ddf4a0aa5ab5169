// Package browser loads pages in headless Chromium for tests and reads
// back the DOM they rendered: what a person would see once the page's
// scripts ran, not the HTML the server sent. Load and Screenshot run
// Chromium once for a DOM or a picture; Open keeps a page open and drives
// it over the DevTools protocol for what only a live page can tell:
// layout (widths, overflow, what is on screen), computed styles, and a
// screenshot of the page scrolled anywhere.
//
// Chromium is an installed program (Debian's chromium package), not a
// module. Without it the tests that need it skip, unless CUZK_BROWSER=1
// (Env) says it must be there: .ci/run installs it and sets that, so the
// browser tests cannot silently stop running in CI.
package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/internal/testenv"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Env is the environment variable that makes a missing browser an error.
const Env = "CUZK_BROWSER"

// names are the names Debian (chromium) and Ubuntu (chromium-browser)
// install Chromium under.
var names = []string{"chromium", "chromium-browser"}

// Path returns the path of Chromium. Without one it skips t, or fails it
// when Env is "1".
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(Env) == "1" {
		t.Fatalf("%s=1 but none of %v is on PATH (Debian: apt-get install chromium)", Env, names)
	}
	testenv.Skip(t, "headless Chromium, apt-get install chromium",
		fmt.Sprintf("needs headless Chromium: none of %v is on PATH (Debian: apt-get install chromium); %s=1 makes this an error", names, Env))
	return ""
}

// Load opens url in headless Chromium, lets the page's scripts run for
// budget of virtual time and returns the DOM they left. Chromium advances
// virtual time only while nothing is being fetched, so a page that polls
// gets its answers within the budget however slow the machine. The browser
// runs with a fresh profile in a temporary directory, no GPU, and none of
// its own background network traffic.
func Load(t testing.TB, url string, budget time.Duration) *Doc {
	t.Helper()
	stdout := run(t, budget, "--dump-dom", url)
	root, err := html.Parse(bytes.NewReader(stdout))
	if err != nil {
		t.Fatalf("the DOM Chromium dumped does not parse: %v", err)
	}
	return &Doc{t: t, root: root}
}

// Screenshot opens url in headless Chromium in a window of width×height
// pixels, lets its scripts run for budget of virtual time (as Load) and
// returns what the window showed.
func Screenshot(t testing.TB, url string, width, height int, budget time.Duration) image.Image {
	t.Helper()
	file := filepath.Join(t.TempDir(), "screenshot.png")
	run(t, budget, "--screenshot="+file, "--hide-scrollbars",
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), url)
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("Chromium wrote no screenshot of %s: %v", url, err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot of %s: %v", url, err)
	}
	return img
}

// run runs headless Chromium with a fresh profile in a temporary
// directory, no GPU, none of its own background network traffic, and
// budget of virtual time; it returns its standard output. Chromium
// advances virtual time only while nothing is being fetched, so a page
// that polls gets its answers within the budget however slow the machine.
func run(t testing.TB, budget time.Duration, args ...string) []byte {
	t.Helper()
	bin := Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=" + strconv.FormatInt(budget.Milliseconds(), 10)}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Chromium's helper processes may hold the pipes a little after the
	// browser itself is gone.
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v (after %v)\n%s", bin, args, err, time.Since(start).Round(time.Millisecond), stderr.Bytes())
	}
	t.Logf("Chromium rendered %s in %v", args[len(args)-1], time.Since(start).Round(time.Millisecond))
	return stdout.Bytes()
}

// Colourful counts the pixels of img inside r (all of it when r is empty)
// that are clearly coloured: neither white, grey nor black, the colours
// of page text and chart frames. A chart's data marks are coloured, so a
// chart area with none is blank.
func Colourful(img image.Image, r image.Rectangle) int {
	if r.Empty() {
		r = img.Bounds()
	}
	r = r.Intersect(img.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			red, green, blue, _ := img.At(x, y).RGBA()
			hi, lo := max(red, green, blue), min(red, green, blue)
			if hi-lo > 0x3000 { // a channel spread of about 20%
				n++
			}
		}
	}
	return n
}

// Dark counts the pixels of img inside r (all of it when r is empty)
// that are dark: text, where a blank area has none.
func Dark(img image.Image, r image.Rectangle) int {
	if r.Empty() {
		r = img.Bounds()
	}
	r = r.Intersect(img.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			red, green, blue, _ := img.At(x, y).RGBA()
			if max(red, green, blue) < 0x8000 {
				n++
			}
		}
	}
	return n
}

// Doc is a rendered DOM.
type Doc struct {
	t    testing.TB
	root *html.Node
}

// Title is the document's title as the scripts left it.
func (d *Doc) Title() string {
	if n := find(d.root, func(n *html.Node) bool { return n.DataAtom == atom.Title }); n != nil {
		return text(n)
	}
	return ""
}

// Count is the number of elements named tag.
func (d *Doc) Count(tag string) int {
	c := 0
	walk(d.root, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			c++
		}
	})
	return c
}

// Text is the text content of the element with id (trimmed); the test
// fails when there is none.
func (d *Doc) Text(id string) string {
	d.t.Helper()
	return strings.TrimSpace(text(d.byID(id)))
}

// Rows are the text contents of the cells of every table row under the
// element with id, header rows included.
func (d *Doc) Rows(id string) [][]string {
	d.t.Helper()
	var rows [][]string
	walk(d.byID(id), func(n *html.Node) {
		if n.DataAtom != atom.Tr {
			return
		}
		var row []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				row = append(row, strings.TrimSpace(text(c)))
			}
		}
		rows = append(rows, row)
	})
	return rows
}

// CountClass is the number of elements under the element with id whose
// class attribute lists class; the test fails when there is no such id.
func (d *Doc) CountClass(id, class string) int {
	d.t.Helper()
	c := 0
	walk(d.byID(id), func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Key == "class" && slices.Contains(strings.Fields(a.Val), class) {
				c++
			}
		}
	})
	return c
}

func (d *Doc) byID(id string) *html.Node {
	d.t.Helper()
	n := find(d.root, func(n *html.Node) bool {
		for _, a := range n.Attr {
			if a.Key == "id" && a.Val == id {
				return true
			}
		}
		return false
	})
	if n == nil {
		d.t.Fatalf("no element with id %q in the rendered page", id)
	}
	return n
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := find(c, match); m != nil {
			return m
		}
	}
	return nil
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}
