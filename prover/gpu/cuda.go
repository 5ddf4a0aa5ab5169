//go:build cuda

package gpu

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lcuzk_supraseal -lcudart_static -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic -static-libgcc -lm -ldl -lrt -lpthread
#include <stdlib.h>
#include <sys/random.h>
#include "csrc/cuzk_supraseal.h"

// libstdc++ is linked statically (the GPU machines need nothing but their
// driver), and GCC 12's libstdc++.a calls arc4random, which glibc has only
// since 2.36; defining it here keeps the binary at glibc 2.34.
uint32_t arc4random(void) {
	uint32_t v;
	while (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
	}
	return v;
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Built reports whether this binary has the CUDA backend.
const Built = true

// goError turns a cuzk_error into a Go error (nil on success), freeing its
// message.
func goError(op string, e C.cuzk_error) error {
	if e.code == 0 {
		return nil
	}
	msg := "unknown error"
	if e.message != nil {
		msg = C.GoString(e.message)
		C.free(unsafe.Pointer(e.message))
	}
	return &CUDAError{Op: op, Code: int(e.code), Msg: msg}
}

func cudaError(op string, code C.int) error {
	if code == 0 {
		return nil
	}
	return &CUDAError{Op: op, Code: int(code), Msg: C.GoString(C.cuzk_cuda_error_string(code))}
}

// Devices lists the CUDA devices the runtime sees. With withFree it also
// queries free memory, which creates a context on each device. No device
// (or no driver) is an error matching ErrNoDevice.
func Devices(withFree bool) ([]Device, error) {
	var n C.int
	if err := cudaError("cudaGetDeviceCount", C.cuzk_device_count(&n)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrNoDevice
	}
	free := C.int(0)
	if withFree {
		free = 1
	}
	out := make([]Device, n)
	for i := range out {
		var d C.cuzk_device
		if err := cudaError(fmt.Sprintf("device %d", i), C.cuzk_device_info(C.int(i), free, &d)); err != nil {
			return nil, err
		}
		out[i] = Device{
			Index:           i,
			Name:            C.GoString(&d.name[0]),
			TotalMemory:     uint64(d.total_mem),
			FreeMemory:      uint64(d.free_mem),
			Major:           int(d.major),
			Minor:           int(d.minor),
			Multiprocessors: int(d.multiprocessors),
			Usable:          d.usable != 0,
		}
	}
	return out, nil
}

// Backend proves on the CUDA devices through supraseal-c2.
//
// supraseal's entry point serialises all calls in the process and spreads
// each batch over every device the process sees, so one Backend drives all
// of them; Start blocks until the batch is proved.
type Backend struct {
	paths   *Paths
	devices []Device

	// inUse is held shared by every Start for the whole kernel call and
	// exclusively by Evict and Close, so that an SRS is never freed under
	// a running proof.
	inUse sync.RWMutex
	mu    sync.Mutex
	srs   map[string]unsafe.Pointer // .params path -> supraseal SRS
}

// New returns a backend over the devices of opt; ErrNoDevice (wrapped)
// when there are none.
func New(opt Options) (*Backend, error) {
	if opt.Paths == nil {
		opt.Paths = &Paths{}
	}
	all, err := Devices(false)
	if err != nil {
		return nil, err
	}
	devs, err := selectDevices(all, opt.Devices)
	if err != nil {
		return nil, err
	}
	if n := cuzkNGPUs(); n == 0 {
		return nil, fmt.Errorf("%w: sppark found none of the %d device(s)", ErrNoDevice, len(all))
	} else if len(opt.Devices) > 0 && n != len(devs) {
		return nil, fmt.Errorf("gpu: %d device(s) configured but sppark uses the %d visible ones; set CUDA_VISIBLE_DEVICES=%s",
			len(devs), n, VisibleDevices(opt.Devices))
	}
	return newBackend(opt.Paths, devs), nil
}

func newBackend(paths *Paths, devs []Device) *Backend {
	return &Backend{paths: paths, devices: devs, srs: make(map[string]unsafe.Pointer)}
}

// cuzkNGPUs is the number of devices sppark uses.
func cuzkNGPUs() int { return int(C.cuzk_ngpus()) }

// Name implements prover.Backend.
func (b *Backend) Name() string { return "cuda" }

// Devices returns the devices the backend proves on.
func (b *Backend) Devices() []Device { return b.devices }

// loadSRS returns supraseal's copy of the .params file behind p, reading it
// on first use.
func (b *Backend) loadSRS(p *groth16.Params) (unsafe.Pointer, error) {
	path, err := b.paths.Lookup(p)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.srs[path]; ok {
		return s, nil
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var s unsafe.Pointer
	if err := goError("loading "+path, C.cuzk_srs_load(cpath, &s)); err != nil {
		return nil, err
	}
	b.srs[path] = s
	return s, nil
}

// Load reads the .params file behind p into supraseal's pinned host
// memory now, so that the first Start does not (it holds about
// p.MemorySize() bytes until Evict or Close).
func (b *Backend) Load(p *groth16.Params) error {
	_, err := b.loadSRS(p)
	return err
}

// Evict drops supraseal's copy of the .params file at path.
func (b *Backend) Evict(path string) {
	b.inUse.Lock()
	defer b.inUse.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.srs[path]; ok {
		C.cuzk_srs_free(s)
		delete(b.srs, path)
	}
}

// ParamsLoaded implements prover.ParamsHolder: p's file is registered
// (Paths.Register), so that Start finds it.
func (b *Backend) ParamsLoaded(p *groth16.Params, path string) error {
	return b.paths.Register(p, path)
}

// ParamsEvicted implements prover.ParamsHolder: supraseal's copy of the
// file is freed and p forgotten.
func (b *Backend) ParamsEvicted(p *groth16.Params, path string) {
	b.Evict(path)
	b.paths.Forget(p)
}

// Close releases every SRS the backend holds.
func (b *Backend) Close() error {
	b.inUse.Lock()
	defer b.inUse.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	for path, s := range b.srs {
		C.cuzk_srs_free(s)
		delete(b.srs, path)
	}
	return nil
}

func frPtr(v []fr.Element) *C.cuzk_fr {
	if len(v) == 0 {
		return nil
	}
	return (*C.cuzk_fr)(unsafe.Pointer(&v[0]))
}

func wordsPtr(v []uint64) *C.uint64_t {
	if len(v) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&v[0]))
}

// Start implements prover.Backend. It runs the whole of supraseal's
// generate_groth16_proofs_c: H by NTTs and the G1 multi-exponentiations on
// the devices, b_g2 on the CPU alongside them, and the assembly; Finish
// only hands the proofs over. The assignments are read in place (their
// backing arrays are pinned for the call, never copied) and left intact.
// The call cannot be interrupted: ctx is checked before it starts.
func (b *Backend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	// The kernels only assert shapes (an assert aborts the process), so
	// every count they rely on is checked first.
	if err := groth16.CheckBatch(p, parts, rnd); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, pa := range parts {
		materializeC(pa)
	}
	t0 := time.Now()
	b.inUse.RLock()
	defer b.inUse.RUnlock()
	srs, err := b.loadSRS(p)
	if err != nil {
		return nil, err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pinned := func(ptr unsafe.Pointer) unsafe.Pointer {
		if ptr != nil {
			pin.Pin(ptr)
		}
		return ptr
	}
	as := make([]C.cuzk_assignment, len(parts))
	rs := make([]fr.Element, len(parts))
	ss := make([]fr.Element, len(parts))
	for i, pa := range parts {
		d := pa.Density
		as[i] = C.cuzk_assignment{
			a_aux_density:       (*C.uint64_t)(pinned(unsafe.Pointer(wordsPtr(d.AAux.Words())))),
			a_aux_bit_len:       C.size_t(len(pa.Aux)),
			a_aux_popcount:      C.size_t(d.AAux.Count()),
			b_inp_density:       (*C.uint64_t)(pinned(unsafe.Pointer(wordsPtr(d.BInput.Words())))),
			b_inp_bit_len:       C.size_t(len(pa.Input)),
			b_inp_popcount:      C.size_t(d.BInput.Count()),
			b_aux_density:       (*C.uint64_t)(pinned(unsafe.Pointer(wordsPtr(d.BAux.Words())))),
			b_aux_bit_len:       C.size_t(len(pa.Aux)),
			b_aux_popcount:      C.size_t(d.BAux.Count()),
			a:                   (*C.cuzk_fr)(pinned(unsafe.Pointer(frPtr(pa.A)))),
			b:                   (*C.cuzk_fr)(pinned(unsafe.Pointer(frPtr(pa.B)))),
			c:                   (*C.cuzk_fr)(pinned(unsafe.Pointer(frPtr(pa.C)))),
			abc_size:            C.size_t(len(pa.A)),
			inp_assignment_data: (*C.cuzk_fr)(pinned(unsafe.Pointer(frPtr(pa.Input)))),
			inp_assignment_size: C.size_t(len(pa.Input)),
			aux_assignment_data: (*C.cuzk_fr)(pinned(unsafe.Pointer(frPtr(pa.Aux)))),
			aux_assignment_size: C.size_t(len(pa.Aux)),
		}
		rs[i], ss[i] = rnd[i].R, rnd[i].S
	}
	proofs := make([]groth16.Proof, len(parts))
	err = goError("generate_groth16_proofs_c", C.cuzk_prove(&as[0], C.size_t(len(parts)),
		frPtr(rs), frPtr(ss), (*C.cuzk_proof)(unsafe.Pointer(&proofs[0])), srs))
	runtime.KeepAlive(parts)
	if err != nil {
		return nil, err
	}
	return &pending{proofs: proofs, times: groth16.StageTimes{MSMG1: time.Since(t0)}}, nil
}

type pending struct {
	proofs []groth16.Proof
	times  groth16.StageTimes
}

// Finish implements prover.Pending: the proofs are already assembled.
func (p *pending) Finish(ctx context.Context) ([]groth16.Proof, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return p.proofs, nil
}

// Times implements prover.Pending. supraseal runs H, the G1 and the G2
// multi-exponentiations concurrently inside one call, so the whole call is
// reported as MSMG1.
func (p *pending) Times() groth16.StageTimes { return p.times }

// compile-time checks that the Go types handed to C have the C layout's
// sizes (the offsets are checked in layout_test.go).
var (
	_ [unsafe.Sizeof(C.cuzk_fr{}) - unsafe.Sizeof(fr.Element{})]struct{}
	_ [unsafe.Sizeof(fr.Element{}) - unsafe.Sizeof(C.cuzk_fr{})]struct{}
	_ [unsafe.Sizeof(C.cuzk_proof{}) - unsafe.Sizeof(groth16.Proof{})]struct{}
	_ [unsafe.Sizeof(groth16.Proof{}) - unsafe.Sizeof(C.cuzk_proof{})]struct{}
	_ [unsafe.Sizeof(C.cuzk_g1{}) - unsafe.Sizeof(bls.G1Affine{})]struct{}
	_ [unsafe.Sizeof(C.cuzk_g2{}) - unsafe.Sizeof(bls.G2Affine{})]struct{}
)

var _ prover.Backend = (*Backend)(nil)

// materializeC gives an assignment that omits c (r1cs.AssignmentOptions.
// OmitC) its c = a∘b row by row, which supraseal takes as an input: equal
// to the real c for a satisfied witness, and a witness that is not gives a
// proof the CPU re-check rejects either way. The daemon keeps c for GPU
// lanes (srs.Options.KeepC), so this runs only for assignments made
// elsewhere.
func materializeC(pa *r1cs.ProvingAssignment) {
	if pa.HasC() || len(pa.C) == len(pa.A) {
		return
	}
	c := make([]fr.Element, len(pa.A), cap(pa.A))
	for i := range c {
		c[i].Mul(&pa.A[i], &pa.B[i])
	}
	pa.C = c
}
