package engine

import (
	"testing"
	"unsafe"
)

// TestRetainedSizeCoversTheJob: the fixed share retainedSize counts per
// retained result covers what a final job holds besides its strings and
// proof bytes: the job struct, its two channels (runtime.hchan, 96 bytes
// on 64-bit), its entry in Engine.jobs (key, value and about half a map
// slot of overhead) and its slot in Engine.retained.
func TestRetainedSizeCoversTheJob(t *testing.T) {
	const hchan, mapEntry, slot = 96, 16 + 8 + 24, 8
	held := int(unsafe.Sizeof(job{})) + 2*hchan + mapEntry + slot
	if held > retainedJobOverhead {
		t.Fatalf("a retained job holds %d bytes besides its strings and proof, retainedJobOverhead counts %d", held, retainedJobOverhead)
	}
	t.Logf("%d of %d bytes", held, retainedJobOverhead)
}
