package procmem

import (
	"sync"
	"syscall"
	"time"
)

// Stage is the measured usage of one step of a long computation.
type Stage struct {
	Name string        `json:"stage"`
	Wall time.Duration `json:"wall_ns"`
	CPU  time.Duration `json:"cpu_ns"` // user + system time of the process
	// Peak anonymous and file-backed RSS seen while the step ran (sampled
	// every Recorder interval, and at its ends), and the peak of the total
	// from the kernel's VmHWM, reset at the step's start.
	PeakAnon int64 `json:"peak_anon_bytes"`
	PeakFile int64 `json:"peak_file_bytes"`
	PeakRSS  int64 `json:"peak_rss_bytes"`
	// EndAnon and EndFile are the RSS when the step ended.
	EndAnon int64 `json:"end_anon_bytes"`
	EndFile int64 `json:"end_file_bytes"`
}

// Recorder measures a sequence of steps: Step ends the current one and
// starts the next; Stop ends the last and returns them all. It samples the
// process's memory on its own goroutine while a step runs.
type Recorder struct {
	every time.Duration
	mu    sync.Mutex
	cur   *Stage
	start time.Time
	cpu0  time.Duration
	done  []Stage
	stop  chan struct{}
	wg    sync.WaitGroup
	// OnStep, when set, is given each step as it ends (a benchmark writes
	// it out at once, so a run killed later keeps what it measured).
	OnStep func(Stage)
}

// NewRecorder returns a recorder sampling every interval (0: 100 ms).
func NewRecorder(interval time.Duration) *Recorder {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	r := &Recorder{every: interval, stop: make(chan struct{})}
	r.wg.Add(1)
	go r.sample()
	return r
}

func (r *Recorder) sample() {
	defer r.wg.Done()
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			if u, err := Read(); err == nil {
				r.mu.Lock()
				r.observe(u)
				r.mu.Unlock()
			}
		}
	}
}

func (r *Recorder) observe(u Usage) {
	if r.cur == nil {
		return
	}
	r.cur.PeakAnon = max(r.cur.PeakAnon, u.Anon)
	r.cur.PeakFile = max(r.cur.PeakFile, u.File)
	r.cur.PeakRSS = max(r.cur.PeakRSS, u.PeakRSS, u.RSS)
}

// Step ends the current step (if any) and starts one called name.
func (r *Recorder) Step(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked()
	_ = ResetPeak()
	r.cur = &Stage{Name: name}
	r.start, r.cpu0 = time.Now(), processCPU()
	if u, err := Read(); err == nil {
		r.observe(u)
	}
}

func (r *Recorder) endLocked() {
	if r.cur == nil {
		return
	}
	if u, err := Read(); err == nil {
		r.observe(u)
		r.cur.EndAnon, r.cur.EndFile = u.Anon, u.File
	}
	r.cur.Wall = time.Since(r.start)
	r.cur.CPU = processCPU() - r.cpu0
	r.done = append(r.done, *r.cur)
	if r.OnStep != nil {
		r.OnStep(*r.cur)
	}
	r.cur = nil
}

// Stop ends the current step and the sampling, and returns every step.
func (r *Recorder) Stop() []Stage {
	close(r.stop)
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked()
	return r.done
}

// processCPU is the process's user plus system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
