// Package regfile opens files that must be regular files (parameter
// files, verifying keys, token files) without blocking on anything else.
//
// open(2) of a FIFO for reading blocks until a writer appears, and a read
// of a character device may never end, so a parameter cache or token file
// replaced by either would hang whoever opened it, holding whatever lock
// or slot it held. Open opens with O_NONBLOCK, which returns at once for a
// FIFO, then refuses anything fstat(2) does not call a regular file; the
// descriptor it returns is in blocking mode again, as os.Open's would be.
// A hung network mount can still block open(2) itself: callers that must
// not wait forever bound the call with a timeout of their own.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is returned (in an *fs.PathError) for a path that is a
// FIFO, a device, a socket or a directory.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path read-only when it is a regular file (a symbolic link to
// one is followed) and returns it with its fstat(2) information.
func Open(path string) (*os.File, fs.FileInfo, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	// O_NONBLOCK means nothing for a regular file on Linux, but the
	// descriptor may be handed to code that expects os.Open's.
	if err := unix.SetNonblock(fd, false); err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return f, fi, nil
}

// ReadFile reads the regular file at path, refusing one larger than max
// bytes (max <= 0: no bound), and returns its contents and information.
func ReadFile(path string, max int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if max > 0 && fi.Size() > max {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%d bytes, more than the %d accepted", fi.Size(), max)}
	}
	var r io.Reader = f
	if max > 0 {
		// The file may grow after the fstat.
		r = io.LimitReader(f, max+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if max > 0 && int64(len(b)) > max {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("more than the %d bytes accepted", max)}
	}
	return b, fi, nil
}

// kind names a file mode's type for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}
