package progress

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake clock moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestPlainLines(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "mmds test", Unit: "points", Total: 100, Now: c.Now})
	for i := 0; i < 100; i++ {
		c.advance(time.Second)
		b.Add(1)
	}
	b.Finish("")
	got := lines(buf.String())
	// one line once the work has run a second, one every 30 s after it,
	// then the final one
	want := []string{
		"2025-01-02T03:04:06Z mmds test: 1/100 points (1%), elapsed 1s, about 1m39s left",
		"2025-01-02T03:04:36Z mmds test: 31/100 points (31%), elapsed 31s, about 1m9s left",
		"2025-01-02T03:05:06Z mmds test: 61/100 points (61%), elapsed 1m1s, about 39s left",
		"2025-01-02T03:05:36Z mmds test: 91/100 points (91%), elapsed 1m31s, about 9s left",
		"2025-01-02T03:05:45Z mmds test: done, 100/100 points in 1m40s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plain lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestShortWorkIsSilent(t *testing.T) {
	for _, term := range []bool{false, true} {
		c := newClock()
		var buf bytes.Buffer
		b := New(&buf, Options{Label: "x", Total: 10, Terminal: term, Now: c.Now})
		for i := 0; i < 10; i++ {
			c.advance(90 * time.Millisecond) // 0.9 s in all, under the 1 s delay
			b.Add(1)
		}
		b.Finish("")
		if buf.Len() != 0 {
			t.Errorf("terminal=%v: work shorter than the delay wrote %q", term, buf.String())
		}
	}
}

func TestPlainFinalLineAfterDelay(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "mmds x", Unit: "points", Total: 4, Now: c.Now})
	b.Add(2)
	c.advance(3 * time.Second)
	b.Finish("stopped at the time limit, 2 not reached")
	want := "2025-01-02T03:04:08Z mmds x: stopped at the time limit, 2 not reached, 2/4 points in 3s\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestQuiet(t *testing.T) {
	for _, term := range []bool{false, true} {
		c := newClock()
		var buf bytes.Buffer
		b := New(&buf, Options{Label: "x", Total: 3, Quiet: true, Terminal: term, Now: c.Now, Long: time.Second})
		b.Start()
		b.Forecast(time.Hour)
		for i := 0; i < 3; i++ {
			c.advance(time.Minute)
			b.Add(1)
			b.Logf("point %d", i)
		}
		b.Finish("")
		if buf.Len() != 0 {
			t.Errorf("terminal=%v: --quiet wrote %q", term, buf.String())
		}
	}
}

func TestTerminalRateLimited(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "mmds t", Unit: "points", Total: 1000, Terminal: true, Now: c.Now})
	c.advance(2 * time.Second)
	for i := 0; i < 1000; i++ { // 1000 points in 1 s: at most 11 redraws at 100 ms
		c.advance(time.Millisecond)
		b.Add(1)
	}
	draws := strings.Count(buf.String(), "\r\x1b[K")
	if draws < 5 || draws > 11 {
		t.Errorf("%d redraws of 1000 updates in 1 s, want about 10", draws)
	}
	last := buf.String()[strings.LastIndex(buf.String(), "\r\x1b[K"):]
	if !strings.Contains(last, "mmds t [###") || !strings.Contains(last, "points") || strings.Contains(last, "\n") {
		t.Errorf("bar line %q", last)
	}
	if n := len([]rune(strings.TrimPrefix(last, "\r\x1b[K"))); n >= DefaultWidth {
		t.Errorf("bar line of %d columns on a terminal of %d: %q", n, DefaultWidth, last)
	}
	buf.Reset()
	b.Finish("done")
	if buf.String() != "\r\x1b[K" {
		t.Errorf("Finish on a terminal wrote %q, want the bar cleared only", buf.String())
	}
}

func TestTerminalEstimate(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "l", Unit: "points", Total: 4, Terminal: true, Now: c.Now})
	c.advance(10 * time.Second)
	b.Add(1)
	if !strings.Contains(buf.String(), "1/4 points (25%), elapsed 10s, about 30s left") {
		t.Errorf("bar %q: want the linear estimate of 30 s left", buf.String())
	}
}

// A phase of costlier units restarts the estimate at its own rate: 30
// closed forms in a second, then searches of 30 s each.
func TestPhaseEstimate(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "l", Unit: "thresholds", Total: 60, Terminal: true, Now: c.Now})
	c.advance(time.Second)
	b.Set(30)
	b.Phase("optimum search")
	c.advance(30 * time.Second)
	b.Set(31)
	if got := buf.String(); !strings.Contains(got, "31/60 thresholds (51%), elapsed 31s, about 14m30s left") {
		t.Errorf("bar %q: want 29 searches at 30 s each left", got)
	}
	b.Phase("") // no unit done in the new phase yet: no estimate
	if left, ok := b.left(31 * time.Second); ok {
		t.Errorf("estimate %v before a unit of the phase", left)
	}
}

func TestForecast(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		perUnit  time.Duration
		want     string
	}{
		{"long on a terminal", true, 100 * time.Millisecond, "mmds f: 1000 points will take about 1m40s; --max-points or --time-limit bound it\n"},
		{"short", true, 10 * time.Millisecond, ""},
		{"not a terminal", false, time.Second, ""},
	}
	for _, tt := range tests {
		c := newClock()
		var buf bytes.Buffer
		b := New(&buf, Options{Label: "mmds f", Unit: "points", Total: 1000, Terminal: tt.terminal, Now: c.Now,
			Hint: "--max-points or --time-limit bound it"})
		b.Forecast(tt.perUnit)
		b.Forecast(tt.perUnit) // said once at most
		if buf.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, buf.String(), tt.want)
		}
	}
}

func TestMeasuredForecast(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "m", Unit: "points", Total: 100, Terminal: true, Now: c.Now, Delay: time.Hour})
	c.advance(2 * time.Second)
	b.Add(1) // 2 s a point: 200 s in all
	if want := "m: 100 points will take about 3m20s\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestLogfAboveBar(t *testing.T) {
	c := newClock()
	var buf bytes.Buffer
	b := New(&buf, Options{Label: "mmds train", Unit: "trials", Total: 2, Terminal: true, Now: c.Now, Delay: -1})
	b.Add(1)
	buf.Reset()
	b.Logf("D 1/2 done")
	if !strings.HasPrefix(buf.String(), "\r\x1b[KD 1/2 done\n\r\x1b[Kmmds train [") {
		t.Errorf("log line on a terminal: %q, want the bar cleared, the line, the bar again", buf.String())
	}
	var plain bytes.Buffer
	p := New(&plain, Options{Label: "mmds train", Now: c.Now})
	p.Logf("D 1/2 done")
	if want := "2025-01-02T03:04:05Z D 1/2 done\n"; plain.String() != want {
		t.Errorf("plain log line %q, want %q", plain.String(), want)
	}
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Start()
	b.Add(1)
	b.Set(2)
	b.Describe("x")
	b.Logf("x")
	b.Forecast(time.Hour)
	b.Finish("")
}

func TestStartRedrawsWithoutUpdates(t *testing.T) {
	var buf syncBuffer
	b := New(&buf, Options{Label: "s", Total: 1, Terminal: true, Delay: -1, Redraw: time.Millisecond})
	b.Start()
	deadline := time.Now().Add(5 * time.Second)
	for buf.Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	b.Finish("")
	if buf.Len() == 0 {
		t.Error("Start drew nothing while no unit ended")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// TestBarWithinWidth: on terminals of every width the bar line keeps within
// the width less one column, and from 60 columns on it shows the estimate
// in full, with the description and the bar cut first.
func TestBarWithinWidth(t *testing.T) {
	for _, width := range []int{20, 40, 60, 79, 80, 100, 120, 200, 300} {
		c := newClock()
		var buf bytes.Buffer
		b := New(&buf, Options{Label: "mmds train", Unit: "accepted trials", Total: 450, Terminal: true, Now: c.Now,
			Width: width, Steps: new(Steps), StepUnit: "panels"})
		c.advance(3 * time.Second)
		b.Describe("D 1/30 = 0.0025: accepted 3/15, attempted 4/150, and a long description that goes on")
		b.Set(9)
		draw := buf.String()[strings.LastIndex(buf.String(), "\r\x1b[K")+len("\r\x1b[K"):]
		if n := len([]rune(draw)); n > width-1 {
			t.Errorf("width %d: a line of %d columns: %q", width, n, draw)
		}
		est := "9/450 accepted trials (2%), 0 panels, elapsed 3s, about 2m27s left"
		if width >= 90 && !strings.Contains(draw, est) {
			t.Errorf("width %d: %q lacks the estimate %q", width, draw, est)
		}
		if width >= 120 && !strings.Contains(draw, "[") {
			t.Errorf("width %d: %q lacks the bar", width, draw)
		}
		if width >= 200 && !strings.Contains(draw, "goes on") {
			t.Errorf("width %d: %q cut the description", width, draw)
		}
	}
}

// TestWidth: the terminal's width, else $COLUMNS, else 80.
func TestWidth(t *testing.T) {
	var buf bytes.Buffer // not a terminal
	for _, tt := range []struct {
		columns string
		want    int
	}{{"", DefaultWidth}, {"132", 132}, {"abc", DefaultWidth}, {"-3", DefaultWidth}, {"0", DefaultWidth}} {
		t.Setenv("COLUMNS", tt.columns)
		if got := Width(&buf); got != tt.want {
			t.Errorf("COLUMNS=%q: width %d, want %d", tt.columns, got, tt.want)
		}
	}
}

// TestSteps: a nil Steps counts nothing; the context carries one.
func TestSteps(t *testing.T) {
	var none *Steps
	none.Add(3)
	if none.Load() != 0 || StepsFrom(context.Background()) != nil {
		t.Error("a nil Steps or a bare context counted")
	}
	s := new(Steps)
	StepsFrom(WithSteps(context.Background(), s)).Add(2)
	if s.Load() != 2 {
		t.Errorf("Load %d, want 2", s.Load())
	}
}
