// Package progress reports the progress of long work on standard error, the
// same way for every mmds command.
//
// On a terminal it draws one line, a bar with the count, the elapsed time
// and an estimate of the time left, redrawn at most every Redraw and kept
// within the terminal's width (the count and the estimate first, then the
// bar, then the description); the bar is cleared when the work ends, so the
// command's own output follows it untouched. Anywhere else (a batch job's
// log, a pipe) it writes plain timestamped lines: one once the work has run
// Delay, then at most one every Every while it runs, and one when it ends.
// Work that ends before Delay shows nothing at all, so short runs and
// scripts see no noise. Quiet silences everything.
//
// The estimate is the linear extrapolation of the measured rate,
//
//	left = elapsed · (total − done) / done,
//
// which is what a sweep of independent points of similar cost needs; work
// in phases of different costs starts each with Phase, and the estimate
// then reads the phase's own elapsed time and units.
// Before the first unit is measured a caller may give a typical cost per
// unit (Forecast); once either says the whole work will take more than
// Long, one line says so, on a terminal only, where a person is waiting.
//
// A Bar is safe for concurrent use; a nil *Bar does nothing, so callers
// may pass its methods as callbacks whether or not progress is shown.
package progress

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Defaults of Options.
const (
	DefaultDelay  = time.Second
	DefaultEvery  = 30 * time.Second
	DefaultRedraw = 100 * time.Millisecond
	DefaultLong   = time.Minute
	// DefaultWidth is the terminal's width in columns when neither the
	// terminal nor $COLUMNS says.
	DefaultWidth = 80
	barCells     = 20
	minBarCells  = 5
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
	// Width is the terminal's width in columns; 0 asks the terminal w is
	// (Width), each time the bar is drawn, so a resized window is followed.
	Width int
	// Steps, when set, counts the finished sub-steps of units that take
	// long each (StepUnit, e.g. "quadrature panels"); the count is shown
	// beside the units', so a long unit is seen to advance.
	Steps    *Steps
	StepUnit string
}

// Bar reports the progress of one piece of work; see the package comment.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	o     Options
	start time.Time
	done  int
	desc  string
	// phase and phaseDone are when the current phase began and the units
	// done then: the estimate extrapolates the phase's own rate (Phase).
	phase     time.Time
	phaseDone int
	drawn     bool      // a bar is on the terminal line now
	shown     bool      // something has been written
	last      time.Time // last redraw or plain line
	warned    bool      // the long-work line has been written
	stop      chan struct{}
	stopped   sync.WaitGroup
	ended     bool
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Width is the width in columns of the terminal w is: what the terminal
// says, else $COLUMNS, else DefaultWidth.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
			return c
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	return DefaultWidth
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
	o.Unit = cmp.Or(o.Unit, "units")
	now := o.Now()
	return &Bar{w: w, o: o, start: now, last: now, phase: now}
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
func (b *Bar) Add(n int) { b.change(func() { b.done += n }) }

// Set records that done units are finished.
func (b *Bar) Set(done int) { b.change(func() { b.done = done }) }

// SetTotal sets the number of units of the work, once it is known.
func (b *Bar) SetTotal(total int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.o.Total = total
}

// Describe sets what the work is doing now (shown after the count).
func (b *Bar) Describe(s string) { b.change(func() { b.desc = s }) }

// Phase starts a phase of the work whose units cost differently from the
// ones before (a search after a sweep of closed forms), described by desc:
// the estimate of the time left extrapolates the rate measured since, not
// the whole work's; the elapsed time shown stays the whole work's.
func (b *Bar) Phase(desc string) {
	b.change(func() { b.phase, b.phaseDone, b.desc = b.o.Now(), b.done, desc })
}

// change applies f to b under its lock, then updates the display; on a nil
// Bar it does nothing.
func (b *Bar) change(f func()) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
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
	ended := b.ended
	b.ended = true
	if ended || b.o.Quiet {
		return
	}
	if b.o.Terminal {
		b.clear()
		return
	}
	now := b.o.Now()
	if !b.shown && now.Sub(b.start) < b.o.Delay {
		return
	}
	b.write(fmt.Sprintf("%s %s: %s, %s in %s\n", now.UTC().Format(time.RFC3339), b.o.Label, cmp.Or(status, "done"),
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
		due := now.Sub(b.last) >= b.o.Every || (!b.shown && elapsed >= b.o.Delay)
		if due {
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
	if b.o.Steps != nil {
		s += fmt.Sprintf(", %d %s", b.o.Steps.Load(), b.o.StepUnit)
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

// left is the linear estimate of the time still needed, at the current
// phase's rate.
func (b *Bar) left(elapsed time.Duration) (time.Duration, bool) {
	done := b.done - b.phaseDone
	if b.o.Total == 0 || done <= 0 || b.done >= b.o.Total {
		return 0, false
	}
	inPhase := elapsed - b.phase.Sub(b.start)
	return time.Duration(float64(inPhase) * float64(b.o.Total-b.done) / float64(done)), true
}

// barLine is the terminal line, within the terminal's width less one
// column (a line that fills the last column wraps on some terminals). The
// label, the count and the estimate come first; the bar gets what room is
// left, down to minBarCells, then the description.
func (b *Bar) barLine(elapsed time.Duration) string {
	width := b.o.Width
	if width <= 0 {
		width = Width(b.w)
	}
	width--
	line := b.o.Label + " " + b.status(elapsed)
	room := width - utf8.RuneCountInString(line)
	if b.o.Total > 0 && room >= minBarCells+3 {
		cells := min(barCells, room-3)
		fill := min(cells, cells*b.done/b.o.Total)
		bar := " [" + strings.Repeat("#", fill) + strings.Repeat("-", cells-fill) + "]"
		line = b.o.Label + bar + " " + b.status(elapsed)
		room -= cells + 3
	}
	if suffix := b.suffix(); suffix != "" && room > 5 {
		line += cut(suffix, room)
	}
	return cut(line, max(width, 1))
}

// Steps counts finished sub-steps for a Bar (Options.Steps); it is safe
// for concurrent use, and a nil *Steps counts nothing, so code deep in a
// computation may call Add whether or not progress is shown.
type Steps struct{ n atomic.Int64 }

// Add records n more finished sub-steps.
func (s *Steps) Add(n int) {
	if s != nil {
		s.n.Add(int64(n))
	}
}

// Load is the number of sub-steps finished.
func (s *Steps) Load() int64 {
	if s == nil {
		return 0
	}
	return s.n.Load()
}

type stepsKey struct{}

// WithSteps returns a context that carries s to the code it is passed to,
// which finds it with StepsFrom: a computation reports its sub-steps
// without a parameter on every function in between, as net/http/httptrace
// carries its hooks.
func WithSteps(ctx context.Context, s *Steps) context.Context {
	return context.WithValue(ctx, stepsKey{}, s)
}

// StepsFrom is the Steps ctx carries, or nil.
func StepsFrom(ctx context.Context) *Steps {
	s, _ := ctx.Value(stepsKey{}).(*Steps)
	return s
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
