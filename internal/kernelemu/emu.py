# Runs x86-64 leaf functions under the Bochs CPU emulator (PyPI
# bochscpu-python 0.3.1) for cuzk's kernel tests: see kernelemu.go for the
# protocol. It reads jobs from stdin until EOF and answers each on stdout.
import struct
import sys

import bochscpu
import bochscpu.cpu
import bochscpu.memory

PAGE = 4096
CODE, RW = 0, 1
GP = 13  # #GP: what hlt raises at CPL 3, the end of every run
PML4_GPA = 0x10_0000
FIRST_GPA = 0x100_0000


def read_exact(f, n):
    b = f.read(n)
    if len(b) != n:
        raise EOFError
    return b


def run_job(inp):
    rip, rsp, flags = struct.unpack("<QQQ", read_exact(inp, 24))
    count = flags & 1
    (npages,) = struct.unpack("<I", read_exact(inp, 4))
    pages = []
    for _ in range(npages):
        gva, pflags = struct.unpack("<QI", read_exact(inp, 12))
        pages.append((gva, pflags, read_exact(inp, PAGE)))
    (nreads,) = struct.unpack("<I", read_exact(inp, 4))
    reads = [struct.unpack("<QQ", read_exact(inp, 16)) for _ in range(nreads)]

    sess = bochscpu.Session()

    def missing(gpa):
        raise RuntimeError(f"missing physical page {gpa:#x}")

    sess.missing_page_handler = missing
    hvas = []
    pt = bochscpu.memory.PageMapLevel4Table()
    for i, (gva, pflags, _) in enumerate(pages):
        gpa = FIRST_GPA + i * PAGE
        hva = bochscpu.memory.allocate_host_page()
        hvas.append(hva)
        bochscpu.memory.page_insert(gpa, hva)
        pt.insert(gva, gpa, CODE if pflags == 0 else RW)
    for hva, gpa in pt.commit(PML4_GPA):
        bochscpu.memory.page_insert(gpa, hva)
    for gva, _, data in pages:
        if not bochscpu.memory.virt_write(PML4_GPA, gva, list(data)):
            raise RuntimeError(f"cannot write page {gva:#x}")

    state = bochscpu.State()
    bochscpu.cpu.set_long_mode(state)
    # SSE and AVX-512 state enabled, as an OS that supports ZMM does
    # (CR4.OSFXSR, OSXMMEXCPT, OSXSAVE; XCR0 x87|SSE|AVX|opmask|ZMM).
    state.cr4 = state.cr4 | (1 << 9) | (1 << 10) | (1 << 18)
    state.xcr0 = 0xE7
    state.cr3 = PML4_GPA
    state.rip = rip
    state.rsp = rsp
    cs = bochscpu.Segment()
    cs.present = True
    cs.selector = 0x33
    cs.base = 0
    cs.limit = 0xFFFF_FFFF
    cs.attr = 0x22FB
    ds = bochscpu.Segment()
    ds.present = True
    ds.selector = 0x2B
    ds.base = 0
    ds.limit = 0xFFFF_FFFF
    ds.attr = 0xCF3
    state.cs = cs
    state.ds = ds
    state.ss = ds
    state.es = ds
    state.fs = ds
    state.gs = ds
    sess.cpu.state = state

    result = {"vector": -1, "error": 0, "insns": 0}

    def on_exception(s, cpu_id, vector, error_code):
        result["vector"] = int(vector)
        result["error"] = int(error_code)
        s.stop()

    hook = bochscpu.Hook()
    hook.exception = on_exception
    if count:
        def after(s, cpu_id, insn):
            result["insns"] += 1
        hook.after_execution = after
    sess.run([hook])

    st = sess.cpu.state
    out = [b"CZKR", struct.pack("<iIQQQ", result["vector"], result["error"], st.rip, st.rsp, result["insns"])]
    for gva, n in reads:
        out.append(bytes(bochscpu.memory.virt_read(PML4_GPA, gva, n)))
    for hva in hvas:
        bochscpu.memory.release_host_page(hva)
    return b"".join(out)


def main():
    inp = sys.stdin.buffer
    outp = sys.stdout.buffer
    while True:
        magic = inp.read(4)
        if not magic:
            return
        if magic != b"CZKJ":
            raise RuntimeError(f"bad job magic {magic!r}")
        try:
            reply = run_job(inp)
        except EOFError:
            return
        except Exception as e:  # reported to the Go side, which fails the test
            msg = str(e).encode()
            reply = b"CZKE" + struct.pack("<I", len(msg)) + msg
        outp.write(reply)
        outp.flush()


if __name__ == "__main__":
    main()
