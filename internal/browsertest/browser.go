// Package browsertest drives Debian's headless Chromium over the DevTools
// protocol for Tether's browser tests: start it, open a page, evaluate
// JavaScript, take a screenshot. It needs no Node and downloads no browser;
// `make browser-deps` installs Chromium.
package browsertest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ChromiumPath is where Debian's chromium package puts the browser.
const ChromiumPath = "/usr/bin/chromium"

// Browser is a headless Chromium started for one test.
type Browser struct {
	cmd     *exec.Cmd
	conn    *cdpConn
	host    string // host:port of the DevTools endpoint
	stderrs *tail
}

// Start launches headless Chromium and stops it when the test ends. Without
// Chromium the test fails in CI (CI=true), where a browser test that does
// not run must not pass, and is skipped elsewhere.
func Start(t testing.TB) *Browser {
	t.Helper()
	requireChromium(t, ChromiumPath)
	b, err := launch(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.stop)
	return b
}

func requireChromium(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	msg := fmt.Sprintf("browser test needs %s: run `make browser-deps`", path)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
		return
	}
	t.Skip(msg)
}

// flags are those known to run on this project's machines: without the
// background-networking ones Chromium keeps dialling Google and is refused
// by the closed network.
func flags(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--window-size=1600,1000",
		"--remote-debugging-port=0", "--remote-allow-origins=" + origin,
		"about:blank",
	}
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

func launch(profile string) (*Browser, error) {
	cmd := exec.Command(ChromiumPath, flags(profile)...)
	// Own process group, so stop also ends the renderer and zygote children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &Browser{cmd: cmd, stderrs: &tail{}}
	wsURL, err := b.readDevToolsURL(stderr)
	if err == nil {
		b.conn, err = dialCDP(wsURL)
	}
	if err != nil {
		b.stop()
		return nil, fmt.Errorf("starting chromium: %w\nchromium stderr:\n%s", err, b.stderrs)
	}
	u, _ := url.Parse(wsURL)
	b.host = u.Host
	return b, nil
}

// readDevToolsURL waits for the line Chromium prints once its DevTools
// endpoint listens (the port is its choice: --remote-debugging-port=0), and
// keeps draining stderr after it so Chromium never blocks on a full pipe.
func (b *Browser) readDevToolsURL(stderr io.Reader) (string, error) {
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			b.stderrs.add(sc.Text())
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			return "", fmt.Errorf("chromium exited before listening for DevTools")
		}
		return u, nil
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("no DevTools URL from chromium after 30s")
	}
}

// stop ends Chromium and its children and waits for them, so the profile
// directory can be removed afterwards.
func (b *Browser) stop() {
	if b.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = b.conn.call(ctx, "Browser.close", nil, nil)
		cancel()
		b.conn.close()
	}
	exited := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL) // stragglers in the group
	<-exited
}

// Page is one browser tab.
type Page struct {
	conn *cdpConn
}

// Open opens url in a new tab. The page may still be loading on return:
// poll with Eval for what the test needs.
func (b *Browser) Open(ctx context.Context, url string) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.conn.call(ctx, "Target.createTarget", map[string]any{"url": url}, &target); err != nil {
		return nil, err
	}
	conn, err := dialCDP("ws://" + b.host + "/devtools/page/" + target.TargetID)
	if err != nil {
		return nil, err
	}
	return &Page{conn: conn}, nil
}

// OnNewDocument runs script in every document the page loads from now on,
// before the document's own scripts (a recorder a test installs before it
// navigates, and that a reload keeps).
func (p *Page) OnNewDocument(ctx context.Context, script string) error {
	// Chromium runs such scripts only once the page's Page domain is on.
	if err := p.conn.call(ctx, "Page.enable", nil, nil); err != nil {
		return err
	}
	return p.conn.call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": script}, nil)
}

// Navigate loads url in the page. It returns once the navigation started:
// poll with Eval for what the test needs.
func (p *Page) Navigate(ctx context.Context, url string) error {
	var res struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.conn.call(ctx, "Page.navigate", map[string]any{"url": url}, &res); err != nil {
		return err
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigating to %s: %s", url, res.ErrorText)
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page (awaiting it if it is
// a promise) and decodes its JSON value into out, which may be nil.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	params := map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}
	if err := p.conn.call(ctx, "Runtime.evaluate", params, &res); err != nil {
		return err
	}
	if e := res.Exception; e != nil {
		return fmt.Errorf("javascript: %s %s", e.Text, e.Exception.Description)
	}
	if out == nil {
		return nil
	}
	return remarshal(res.Result.Value, out)
}

// SetViewport makes the page's window width x height CSS pixels, at one
// device pixel per CSS pixel: a projector's 1280x720, say.
func (p *Page) SetViewport(ctx context.Context, width, height int) error {
	params := map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}
	return p.conn.call(ctx, "Emulation.setDeviceMetricsOverride", params, nil)
}

// Screenshot returns a PNG of the visible part of the page.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var res struct {
		Data string `json:"data"`
	}
	if err := p.conn.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &res); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(res.Data)
}

// remarshal converts a decoded JSON value into out's type.
func remarshal(v, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// tail keeps the last lines of Chromium's stderr for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > 40 {
		t.lines = t.lines[1:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
