package server_test

import (
	"bytes"
	"encoding/binary"
	"net"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2conn is an HTTP/2 client that writes frames as a hostile caller
// would: streams it never finishes, headers of any size, replies it
// never reads. A reader goroutine records what the server answers.
type h2conn struct {
	t    *testing.T
	conn net.Conn
	fr   *http2.Framer
	next uint32

	mu       sync.Mutex
	settings map[http2.SettingID]uint32
	resets   map[uint32]http2.ErrCode
	statuses map[uint32]string // grpc-status of streams that ended with headers
	goaway   bool
	readErr  error
	read     chan struct{} // closed when the reader stops
}

// dialH2 opens a connection to a plain-text gRPC address ("unix://…" or
// host:port) and sends the client preface. read false leaves whatever the
// server writes unread, as a caller that never reads does.
func dialH2(t *testing.T, addr string, read bool) *h2conn {
	t.Helper()
	network := "tcp"
	if p, ok := strings.CutPrefix(addr, "unix://"); ok {
		network, addr = "unix", p
	}
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	h := &h2conn{t: t, conn: c, fr: http2.NewFramer(c, c), next: 1, settings: map[http2.SettingID]uint32{},
		resets: map[uint32]http2.ErrCode{}, statuses: map[uint32]string{}, read: make(chan struct{})}
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := h.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	if read {
		go h.readLoop()
	} else {
		close(h.read)
	}
	return h
}

func (h *h2conn) readLoop() {
	defer close(h.read)
	for {
		f, err := h.fr.ReadFrame()
		h.mu.Lock()
		if err != nil {
			h.readErr = err
			h.mu.Unlock()
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = f.ForeachSetting(func(s http2.Setting) error { h.settings[s.ID] = s.Val; return nil })
			}
		case *http2.RSTStreamFrame:
			h.resets[f.StreamID] = f.ErrCode
		case *http2.MetaHeadersFrame:
			if v := f.PseudoValue("status"); v != "" || f.StreamEnded() {
				for _, hf := range f.Fields {
					if hf.Name == "grpc-status" {
						h.statuses[f.StreamID] = hf.Value
					}
				}
			}
		case *http2.GoAwayFrame:
			h.goaway = true
		}
		h.mu.Unlock()
	}
}

// headers opens a stream to method with extra header fields, split into
// CONTINUATION frames of 16 KiB, and returns its id. end closes the
// stream's sending side (no message follows).
func (h *h2conn) headers(method string, end bool, extra ...hpack.HeaderField) (uint32, error) {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range append([]hpack.HeaderField{
		{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"}, {Name: ":path", Value: method},
		{Name: ":authority", Value: "localhost"}, {Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"},
	}, extra...) {
		if err := enc.WriteField(f); err != nil {
			return 0, err
		}
	}
	id := h.next
	h.next += 2
	b := block.Bytes()
	const chunk = 16 << 10
	first := b[:min(len(b), chunk)]
	b = b[len(first):]
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: end, EndHeaders: len(b) == 0}); err != nil {
		return 0, err
	}
	for len(b) > 0 {
		c := b[:min(len(b), chunk)]
		b = b[len(c):]
		if err := h.fr.WriteContinuation(id, len(b) == 0, c); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// message sends msg as the stream's one gRPC message and ends the stream.
func (h *h2conn) message(id uint32, msg []byte) error {
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	return h.fr.WriteData(id, true, append(frame, msg...))
}

// setting waits for the server's SETTINGS and returns the value of id
// (false: not sent).
func (h *h2conn) setting(id http2.SettingID) (uint32, bool) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.mu.Lock()
		n, v := len(h.settings), h.settings
		val, ok := v[id]
		h.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			return val, ok
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// heapBytes is the heap's live objects after a collection.
func heapBytes() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// heapPeak samples the heap's objects (garbage not yet collected
// included, so a buffer that lived for a moment counts) every
// millisecond until stop is called, which returns the largest sample.
func heapPeak() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, out := make(chan struct{}), make(chan uint64, 1)
	go func() {
		var peak uint64
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				out <- peak
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}
