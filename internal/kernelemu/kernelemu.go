//go:build linux && amd64

package kernelemu

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/cuzk-dev/cuzk/internal/testenv"
)

//go:embed emu.py
var script []byte

const page = 4096

// ErrUnavailable is returned when python3 or bochscpu cannot be started.
var ErrUnavailable = errors.New("kernelemu: Bochs emulator unavailable (pip install bochscpu-python==0.3.1)")

// Region is memory a kernel reads or writes: it is mapped at its own
// address and copied back after the run.
type Region struct {
	Ptr unsafe.Pointer
	Len int
}

func (r Region) addr() uintptr { return uintptr(r.Ptr) }

// Bytes is the region of the n bytes at p.
func Bytes(p unsafe.Pointer, n int) Region { return Region{Ptr: p, Len: n} }

// Slice is the region of a slice's elements.
func Slice[T any](s []T) Region {
	if len(s) == 0 {
		return Region{}
	}
	var z T
	return Region{Ptr: unsafe.Pointer(&s[0]), Len: len(s) * int(unsafe.Sizeof(z))}
}

// Func is an assembly function of the running binary.
type Func struct {
	Name string
	Addr uintptr
	Size int
}

// FuncAt is the assembly function whose ABI0 entry is addr (an assembly
// helper of the kernel's package takes it with LEAQ ·name(SB)); name is
// checked against the runtime's function table and the size read from it.
func FuncAt(name string, addr uintptr) (Func, error) {
	f := runtime.FuncForPC(addr)
	if f == nil || f.Entry() != addr {
		return Func{}, fmt.Errorf("kernelemu: no function starts at %#x (%s)", addr, name)
	}
	if got := strings.TrimSuffix(f.Name(), ".abi0"); got != name {
		return Func{}, fmt.Errorf("kernelemu: function at %#x is %s, not %s", addr, got, name)
	}
	size := 1
	for ; size < 1<<20; size++ {
		if g := runtime.FuncForPC(addr + uintptr(size)); g == nil || g.Entry() != addr {
			break
		}
	}
	return Func{Name: name, Addr: addr, Size: size}, nil
}

// Emulator is one python3 process running emu.py; calls are serialised.
type Emulator struct {
	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	dir   string
	mem   *os.File // /proc/self/mem
	stack []byte
	hlt   []byte
}

// Start launches the emulator process. It returns an error wrapping
// ErrUnavailable when python3 or the bochscpu module is missing.
func Start(ctx context.Context) (*Emulator, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if out, err := exec.CommandContext(ctx, py, "-c", "import bochscpu, bochscpu.cpu, bochscpu.memory").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, out)
	}
	dir, err := os.MkdirTemp("", "kernelemu")
	if err != nil {
		return nil, err
	}
	path := dir + "/emu.py"
	if err := os.WriteFile(path, script, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.CommandContext(ctx, py, path)
	in, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stderr = &tail{max: 4096}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("kernelemu: %w", err)
	}
	e := &Emulator{cmd: cmd, in: in, out: bufio.NewReader(out), dir: dir, mem: mem}
	// The stack and the hlt page live in this process's heap, at addresses
	// no other region can have; both are page-aligned slices of their own.
	e.stack = alignedPages(16)
	e.hlt = alignedPages(1)
	for i := range e.hlt {
		e.hlt[i] = 0xF4
	}
	return e, nil
}

func alignedPages(n int) []byte {
	b := make([]byte, (n+1)*page)
	off := int((page - uintptr(unsafe.Pointer(&b[0]))%page) % page)
	return b[off : off+n*page]
}

// Close ends the emulator process.
func (e *Emulator) Close() error {
	e.mem.Close()
	e.in.Close()
	err := e.cmd.Wait()
	os.RemoveAll(e.dir)
	return err
}

// Result is how a run ended.
type Result struct {
	Insns uint64   // instructions executed (only with CallCount)
	Frame []uint64 // the argument frame after the run (results included)
}

// Call runs fn with the ABI0 argument frame args (each word as the
// assembler's FP offsets 0, 8, …) over the given memory regions.
func (e *Emulator) Call(fn Func, args []uint64, regions ...Region) (Result, error) {
	return e.call(fn, args, false, regions)
}

// CallCount is Call that also counts the instructions executed (slower).
func (e *Emulator) CallCount(fn Func, args []uint64, regions ...Region) (Result, error) {
	return e.call(fn, args, true, regions)
}

func (e *Emulator) call(fn Func, args []uint64, count bool, regions []Region) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	// Stack: return address at rsp, the frame above it, room below for
	// the kernel's own frame.
	top := uintptr(unsafe.Pointer(&e.stack[0])) + uintptr(len(e.stack))
	frameLen := 8 * (len(args) + 1)
	rsp := (top - uintptr(frameLen) - 64) &^ 63
	sp := e.stack[rsp-uintptr(unsafe.Pointer(&e.stack[0])):]
	binary.LittleEndian.PutUint64(sp, uint64(uintptr(unsafe.Pointer(&e.hlt[0]))))
	for i, a := range args {
		binary.LittleEndian.PutUint64(sp[8+8*i:], a)
	}
	frame := Region{Ptr: unsafe.Pointer(&sp[8]), Len: 8 * len(args)}

	pages := map[uintptr]uint32{} // page address → flags (0 code, 1 data)
	add := func(a uintptr, n int, flags uint32) {
		for p := a &^ (page - 1); p < a+uintptr(n); p += page {
			if _, ok := pages[p]; !ok || flags == 0 {
				pages[p] = flags
			}
		}
	}
	add(fn.Addr, fn.Size, 0)
	add(uintptr(unsafe.Pointer(&e.hlt[0])), len(e.hlt), 0)
	add(uintptr(unsafe.Pointer(&e.stack[0])), len(e.stack), 1)
	for _, r := range regions {
		add(r.addr(), r.Len, 1)
	}
	addrs := make([]uintptr, 0, len(pages))
	for p := range pages {
		addrs = append(addrs, p)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })

	w := bufio.NewWriterSize(e.in, 1<<16)
	var hdr [8]byte
	put64 := func(v uint64) { binary.LittleEndian.PutUint64(hdr[:], v); w.Write(hdr[:8]) }
	put32 := func(v uint32) { binary.LittleEndian.PutUint32(hdr[:], v); w.Write(hdr[:4]) }
	w.WriteString("CZKJ")
	put64(uint64(fn.Addr))
	put64(uint64(rsp))
	var flags uint64
	if count {
		flags |= 1
	}
	put64(flags)
	put32(uint32(len(addrs)))
	buf := make([]byte, page)
	for _, p := range addrs {
		// Whole pages, whatever else they hold, read through
		// /proc/self/mem: the text and the heap alike.
		if _, err := e.mem.ReadAt(buf, int64(p)); err != nil {
			return Result{}, fmt.Errorf("kernelemu: reading page %#x: %w", p, err)
		}
		put64(uint64(p))
		put32(pages[p])
		w.Write(buf)
	}
	reads := append([]Region{frame}, regions...)
	put32(uint32(len(reads)))
	for _, r := range reads {
		put64(uint64(r.addr()))
		put64(uint64(r.Len))
	}
	if err := w.Flush(); err != nil {
		return Result{}, e.fail(err)
	}

	var magic [4]byte
	if _, err := io.ReadFull(e.out, magic[:]); err != nil {
		return Result{}, e.fail(err)
	}
	switch string(magic[:]) {
	case "CZKR":
	case "CZKE":
		var n [4]byte
		io.ReadFull(e.out, n[:])
		msg := make([]byte, binary.LittleEndian.Uint32(n[:]))
		io.ReadFull(e.out, msg)
		return Result{}, fmt.Errorf("kernelemu: %s: emulator: %s", fn.Name, msg)
	default:
		return Result{}, e.fail(fmt.Errorf("bad reply %q", magic))
	}
	var st [32]byte
	if _, err := io.ReadFull(e.out, st[:]); err != nil {
		return Result{}, e.fail(err)
	}
	vector := int32(binary.LittleEndian.Uint32(st[0:]))
	errCode := binary.LittleEndian.Uint32(st[4:])
	rip := binary.LittleEndian.Uint64(st[8:])
	endRSP := binary.LittleEndian.Uint64(st[16:])
	res := Result{Insns: binary.LittleEndian.Uint64(st[24:])}
	back := make([][]byte, len(reads))
	for i, r := range reads {
		back[i] = make([]byte, r.Len)
		if _, err := io.ReadFull(e.out, back[i]); err != nil {
			return Result{}, e.fail(err)
		}
	}
	hltAddr := uint64(uintptr(unsafe.Pointer(&e.hlt[0])))
	// bochscpu reports the #GP of the hlt with rip at or just past it.
	if vector != 13 || (rip != hltAddr && rip != hltAddr+1) || endRSP != uint64(rsp)+8 {
		return res, fmt.Errorf("kernelemu: %s did not return: exception %d (error code %#x) at rip %#x, rsp %#x (want #GP at the hlt %#x, rsp %#x)",
			fn.Name, vector, errCode, rip, endRSP, hltAddr, rsp+8)
	}
	res.Frame = make([]uint64, len(args))
	for i := range res.Frame {
		res.Frame[i] = binary.LittleEndian.Uint64(back[0][8*i:])
	}
	for i, r := range regions {
		copy(unsafe.Slice((*byte)(r.Ptr), r.Len), back[i+1])
	}
	return res, nil
}

func (e *Emulator) fail(err error) error {
	msg := ""
	if t, ok := e.cmd.Stderr.(*tail); ok {
		msg = string(t.buf)
	}
	return fmt.Errorf("kernelemu: emulator process: %w; stderr: %s", err, msg)
}

// tail keeps the last bytes written to it (the emulator's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// PolicyEnv is the environment variable of the test policy: "require"
// (as .ci/run sets it) turns a missing emulator into a failure.
const PolicyEnv = "CUZK_KERNEL_TESTS"

// ForTest starts an emulator for t and closes it when t ends. Without the
// emulator it skips t, or fails it under CUZK_KERNEL_TESTS=require.
func ForTest(t testing.TB) *Emulator {
	t.Helper()
	e, err := Start(context.Background())
	if err != nil {
		if os.Getenv(PolicyEnv) == "require" {
			t.Fatalf("%v (%s=require)", err, PolicyEnv)
		}
		testenv.Skip(t, "emulated IFMA kernels, pip install bochscpu-python==0.3.1",
			fmt.Sprintf("emulated kernel test skipped: %v; %s=require makes this a failure", err, PolicyEnv))
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("kernelemu: %v", err)
		}
	})
	return e
}
