package server

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// Transport limits. docs/security.md ("Transport limits") gives the
// reasoning and the memory figure they add up to; keep the two in step.
const (
	// MaxRecvMsgSize bounds one gRPC request. The largest Curio sends is
	// a full 32 GiB WindowPoSt partition, 2,349 vanilla proofs of 24,960
	// bytes (58.7 MB on the wire; a 64 GiB partition, 2,300 of about
	// 25,440, is 58.5 MB), then a 64 GiB PoRep C1 in Curio's wrapper
	// (39.3 MB of JSON, base64: 52.5 MB; 32 GiB: 51.8 MB). 128 MiB is
	// twice the largest and the Rust cuzk's own limit, so nothing Curio
	// can send to that server is refused here.
	MaxRecvMsgSize = 128 << 20
	// MaxSendMsgSize bounds one reply. The largest is GetMetrics'
	// Prometheus text, tens of KB; proofs are at most 1,920 bytes.
	MaxSendMsgSize = 4 << 20
	// MaxConcurrentStreams bounds the calls one connection has open at
	// once. Curio keeps at most its cuzk MaxPending (10 by default) Prove
	// calls and a GetStatus open per node and connection; the engine
	// holds at most max_pending (256 by default) jobs. Calls past the
	// bound wait in the client, they are not refused.
	MaxConcurrentStreams = 256
	// MaxHeaderListSize bounds a stream's decoded headers (HPACK
	// references included, so a table bomb stops here). A gRPC call's
	// headers, a bearer token among them, are under 1 KiB.
	MaxHeaderListSize = 16 << 10
	// MaxConnections bounds the gRPC listener's open connections, and
	// MaxHTTPConnections the status listener's: together well under the
	// 1,024 descriptors of the smallest common limit, so that parameter
	// files can always be opened. A connection past the bound is closed
	// as soon as it is accepted.
	MaxConnections     = 256
	MaxHTTPConnections = 64
	// HandshakeTimeout bounds the time from accepting a connection to the
	// end of its TLS handshake and HTTP/2 preface: a caller that connects
	// and says nothing holds its slot no longer.
	HandshakeTimeout = 10 * time.Second
	// IdleTimeout closes a gRPC connection that has had no call open for
	// so long (GOAWAY; clients reconnect at their next call).
	IdleTimeout = 2 * time.Minute
)

// transportOptions are the gRPC server's transport limits.
func transportOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxRecvMsgSize),
		grpc.MaxSendMsgSize(MaxSendMsgSize),
		grpc.MaxConcurrentStreams(MaxConcurrentStreams),
		grpc.MaxHeaderListSize(MaxHeaderListSize),
		grpc.ConnectionTimeout(HandshakeTimeout),
		// What a caller that does not read can make a connection hold:
		// this buffer, plus one queued reply per open stream (gRPC
		// queues a unary reply whole, then stops at the caller's flow
		// control window).
		grpc.WriteBufferSize(32 << 10),
		grpc.ReadBufferSize(32 << 10),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: IdleTimeout,
			// A peer that does not answer a ping within Timeout of
			// Time of silence is gone (a dead machine, a cut link).
			Time:    time.Minute,
			Timeout: 20 * time.Second,
		}),
		// Clients may ping every 20 s, idle or not; more often is
		// answered with GOAWAY. (gRPC's default, 5 min without streams,
		// refuses the keepalive NAT and load balancers need.)
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 20 * time.Second, PermitWithoutStream: true}),
	}
}

// limitListener closes connections accepted past max open ones, so that
// a flood of connections costs descriptors and memory only up to the
// bound. It closes rather than waits (netutil.LimitListener), so that a
// caller past the bound learns it at once instead of timing out, and the
// kernel's backlog does not fill with connections served minutes late.
type limitListener struct {
	net.Listener
	max  int64
	name string
	log  *slog.Logger

	open atomic.Int64

	mu         sync.Mutex
	lastLogged time.Time
	refused    int
}

func newLimitListener(l net.Listener, max int, name string, log *slog.Logger) *limitListener {
	return &limitListener{Listener: l, max: int64(max), name: name, log: log}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &limitedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		c.Close()
		l.refusedOne()
	}
}

// refusedOne logs refused connections, at most one line a second.
func (l *limitListener) refusedOne() {
	l.mu.Lock()
	l.refused++
	now := time.Now()
	if now.Sub(l.lastLogged) < time.Second {
		l.mu.Unlock()
		return
	}
	n := l.refused
	l.lastLogged, l.refused = now, 0
	l.mu.Unlock()
	l.log.Warn("connections refused: the listener has as many open as it allows", "listener", l.name, "max", l.max, "refused", n)
}

// limitedConn gives its slot back when it is closed, once.
type limitedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
