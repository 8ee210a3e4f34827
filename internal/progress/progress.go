// Package progress reports the progress of long work on standard error, the
// same way for every mmds command.
//
// On a terminal it draws one line, a bar with the count, the elapsed time
// and an estimate of the time left, redrawn at most every Redraw; the bar
// is cleared when the work ends, so the command's own output follows it
// untouched. Anywhere else (a batch job's log, a pipe) it writes plain
// timestamped lines: at most one every Every while the work runs, and one
// when it ends. Work that ends before Delay shows nothing at all, so short
// runs and scripts see no noise. Quiet silences everything.
//
// The estimate is the linear extrapolation of the measured rate,
//
//	left = elapsed · (total − done) / done,
//
// which is what a sweep of independent points of similar cost needs.
// Before the first unit is measured a caller may give a typical cost per
// unit (Forecast); once either says the whole work will take more than
// Long, one line says so, on a terminal only, where a person is waiting.
//
// A Bar is safe for concurrent use; a nil *Bar does nothing, so callers
// may pass its methods as callbacks whether or not progress is shown.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Defaults of Options.
const (
	DefaultDelay  = 2 * time.Second
	DefaultEvery  = 30 * time.Second
	DefaultRedraw = 100 * time.Millisecond
	DefaultLong   = time.Minute
	// width of the terminal line the bar keeps within
	lineWidth = 79
	barCells  = 20
)

// Options configure a Bar. The zero value of every duration is its default.
type Options struct {
	// Label starts every line, e.g. "mmds gauss".
	Label string
	// Unit names what Total counts, plural, e.g. "points".
	Unit string
	// Total is the number of units of the work (0: unknown; no bar or
	// estimate then, only the count and the elapsed time).
	Total int
	// Quiet shows nothing.
	Quiet bool
	// Terminal draws a bar rather than plain lines (New's caller
	// usually sets it to IsTerminal(w)).
	Terminal bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Delay: nothing is shown before the work has run this long, and work
	// that ends sooner shows nothing. Negative means no delay.
	Delay time.Duration
	// Every is the longest silence between plain lines.
	Every time.Duration
	// Redraw is the shortest interval between two bar redraws.
	Redraw time.Duration
	// Long is the estimated duration above which Forecast says so.
	Long time.Duration
	// Hint ends the long-work line: how to bound or stop the work.
	Hint string
}

// Bar reports the progress of one piece of work; see the package comment.
type Bar struct {
	mu      sync.Mutex
	w       io.Writer
	o       Options
	start   time.Time
	done    int
	desc    string
	drawn   bool      // a bar is on the terminal line now
	shown   bool      // something has been written
	last    time.Time // last redraw or plain line
	warned  bool      // the long-work line has been written
	stop    chan struct{}
	stopped sync.WaitGroup
	ended   bool
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// New starts reporting work to w now. It starts no goroutine; call Start
// to have the bar redrawn (and plain lines written) while no unit ends.
func New(w io.Writer, o Options) *Bar {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Delay == 0 {
		o.Delay = DefaultDelay
	} else if o.Delay < 0 {
		o.Delay = 0
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.Redraw <= 0 {
		o.Redraw = DefaultRedraw
	}
	if o.Long <= 0 {
		o.Long = DefaultLong
	}
	if o.Unit == "" {
		o.Unit = "units"
	}
	now := o.Now()
	return &Bar{w: w, o: o, start: now, last: now}
}

// Start redraws the bar every Redraw (a terminal) or checks for a due
// plain line every second until Finish, so a unit that takes minutes does
// not freeze the display.
func (b *Bar) Start() {
	if b == nil || b.o.Quiet {
		return
	}
	period := b.o.Redraw
	if !b.o.Terminal {
		period = time.Second
	}
	b.stop = make(chan struct{})
	b.stopped.Add(1)
	go func() {
		defer b.stopped.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.mu.Lock()
				b.update(false)
				b.mu.Unlock()
			}
		}
	}()
}

// Add records n more finished units.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.update(false)
}

// Set records that done units are finished.
func (b *Bar) Set(done int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = done
	b.update(false)
}

// Describe sets what the work is doing now (shown after the count).
func (b *Bar) Describe(s string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.desc = s
	b.update(false)
}

// Logf writes one line that must not wait for the next plain line (a
// finished threshold, a lock taken over), above the bar on a terminal.
// It is shown whatever Delay says; only Quiet silences it.
func (b *Bar) Logf(format string, args ...any) {
	if b == nil || b.o.Quiet {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
	line := fmt.Sprintf(format, args...)
	if !b.o.Terminal {
		line = b.o.Now().UTC().Format(time.RFC3339) + " " + line
	}
	b.write(line + "\n")
	if b.o.Terminal {
		b.update(true)
	}
}

// Forecast says, once and on a terminal only, that the work will take
// long: Total units at perUnit each beyond Long. The measured rate says
// the same by itself once a unit has ended and a second has passed.
func (b *Bar) Forecast(perUnit time.Duration) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forecast(time.Duration(b.o.Total) * perUnit)
}

func (b *Bar) forecast(est time.Duration) {
	if b.o.Quiet || !b.o.Terminal || b.warned || b.o.Total == 0 || est < b.o.Long {
		return
	}
	b.warned = true
	b.clear()
	line := fmt.Sprintf("%s: %d %s will take about %s", b.o.Label, b.o.Total, b.o.Unit, round(est))
	if b.o.Hint != "" {
		line += "; " + b.o.Hint
	}
	b.write(line + "\n")
}

// Finish ends the report: a terminal's bar is cleared; on anything else a
// last line says how the work ended (status, e.g. "done" or "stopped at
// the time limit"), if anything was shown or the work ran past Delay.
func (b *Bar) Finish(status string) {
	if b == nil {
		return
	}
	if b.stop != nil {
		close(b.stop)
		b.stopped.Wait()
		b.stop = nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended || b.o.Quiet {
		b.ended = true
		return
	}
	b.ended = true
	if b.o.Terminal {
		b.clear()
		return
	}
	now := b.o.Now()
	if !b.shown && now.Sub(b.start) < b.o.Delay {
		return
	}
	if status == "" {
		status = "done"
	}
	b.write(fmt.Sprintf("%s %s: %s, %s in %s\n", now.UTC().Format(time.RFC3339), b.o.Label, status,
		b.count(), round(now.Sub(b.start))))
}

// update redraws the bar (at most every Redraw unless force) or writes a
// plain line when one is due (Every after the last one, or the start).
func (b *Bar) update(force bool) {
	if b.o.Quiet || b.ended {
		return
	}
	now := b.o.Now()
	elapsed := now.Sub(b.start)
	if b.done > 0 && elapsed >= time.Second {
		b.forecast(elapsed * time.Duration(b.o.Total) / time.Duration(b.done))
	}
	if !b.o.Terminal {
		if now.Sub(b.last) >= b.o.Every {
			b.last = now
			b.write(fmt.Sprintf("%s %s: %s%s\n", now.UTC().Format(time.RFC3339), b.o.Label, b.status(elapsed), b.suffix()))
		}
		return
	}
	if elapsed < b.o.Delay || (!force && b.drawn && now.Sub(b.last) < b.o.Redraw) {
		return
	}
	b.last = now
	b.write("\r\x1b[K" + b.barLine(elapsed))
	b.drawn = true
}

// clear removes the bar from the terminal line.
func (b *Bar) clear() {
	if b.drawn {
		b.write("\r\x1b[K")
		b.drawn = false
	}
}

func (b *Bar) write(s string) {
	_, _ = io.WriteString(b.w, s) // a failing progress write is not worth stopping the work for
	b.shown = true
}

// count is "12/30 points" or "12 points".
func (b *Bar) count() string {
	if b.o.Total > 0 {
		return fmt.Sprintf("%d/%d %s", b.done, b.o.Total, b.o.Unit)
	}
	return fmt.Sprintf("%d %s", b.done, b.o.Unit)
}

// status is the count, the share and the times.
func (b *Bar) status(elapsed time.Duration) string {
	s := b.count()
	if b.o.Total > 0 {
		s += fmt.Sprintf(" (%d%%)", 100*b.done/b.o.Total)
	}
	s += ", elapsed " + round(elapsed).String()
	if left, ok := b.left(elapsed); ok {
		s += ", about " + round(left).String() + " left"
	}
	return s
}

func (b *Bar) suffix() string {
	if b.desc == "" {
		return ""
	}
	return " — " + b.desc
}

// left is the linear estimate of the time still needed.
func (b *Bar) left(elapsed time.Duration) (time.Duration, bool) {
	if b.o.Total == 0 || b.done == 0 || b.done >= b.o.Total {
		return 0, false
	}
	return time.Duration(float64(elapsed) * float64(b.o.Total-b.done) / float64(b.done)), true
}

// barLine is the terminal line, cut to lineWidth characters.
func (b *Bar) barLine(elapsed time.Duration) string {
	var sb strings.Builder
	sb.WriteString(b.o.Label)
	if b.o.Total > 0 {
		fill := min(barCells, barCells*b.done/b.o.Total)
		sb.WriteString(" [" + strings.Repeat("#", fill) + strings.Repeat("-", barCells-fill) + "]")
	}
	sb.WriteString(" " + b.status(elapsed) + b.suffix())
	return cut(sb.String(), lineWidth)
}

// cut shortens s to at most n runes, ending in "…" when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// round rounds a duration for display: to the second from one second on,
// else to the millisecond.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
