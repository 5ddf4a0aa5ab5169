package bench

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress reports a long operation while it runs. On a terminal it
// redraws one status line in place every second; otherwise it writes a
// log line every interval, so logs of unattended runs show it is alive.
// Lines printed through Println never collide with the status line.
type Progress struct {
	w      io.Writer
	tty    bool
	every  time.Duration
	status func() string
	start  time.Time

	mu    sync.Mutex
	drawn bool
	stop  chan struct{}
	done  chan struct{}
}

// StartProgress starts reporting status() to w (a terminal when tty).
// every <= 0 turns the periodic lines off (Println still works).
func StartProgress(w io.Writer, tty bool, every time.Duration, status func() string) *Progress {
	p := &Progress{w: w, tty: tty, every: every, status: status, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	interval := every
	if tty {
		interval = time.Second
	}
	if interval <= 0 || status == nil {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				s := p.status()
				p.mu.Lock()
				if p.tty {
					fmt.Fprintf(p.w, "\r\033[K[%7.1fs] %s", time.Since(p.start).Seconds(), s)
					p.drawn = true
				} else {
					fmt.Fprintf(p.w, "[%7.1fs] %s\n", time.Since(p.start).Seconds(), s)
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Println writes line (and a newline) to out, clearing the status line
// first on a terminal.
func (p *Progress) Println(out io.Writer, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(out, line)
}

// Elapsed is the time since the start.
func (p *Progress) Elapsed() time.Duration { return time.Since(p.start) }

// Stop ends the reports and clears the status line.
func (p *Progress) Stop() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
	p.mu.Lock()
	p.clearLocked()
	p.mu.Unlock()
}

func (p *Progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// Bar draws done of total as a bar of width cells: "[#####-----]".
func Bar(done, total, width int) string {
	if total <= 0 || width <= 0 {
		return ""
	}
	n := min(max(done*width/total, 0), width)
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", width-n) + "]"
}
