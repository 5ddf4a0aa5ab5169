// cuzk's wrapper around supraseal-c2's CUDA Groth16 prover.
//
// This translation unit includes supraseal-c2's cuda/groth16_cuda.cu (found
// on the include path set by scripts/build-gpu.sh; it is never copied into
// this repository) and adds C entry points with plain C types for cgo: the
// real layout of the C++ types (so a Go test can assert that fr.Element,
// the density bitmaps and the proof points are passed without conversion),
// SRS loading that reports errors instead of throwing, device enumeration
// from the CUDA runtime, and MSM/NTT timing for the device check.

#include "groth16_cuda.cu"

#include <chrono>
#include <cstddef>
#include <cstring>
#include <cerrno>
#include <exception>

#include "cuzk_supraseal.h"

// Host code only: nvcc also parses this file for each device architecture,
// where fr_t is the device type and none of this exists.
#ifndef __CUDA_ARCH__

static cuzk_error cuzk_ok() { return cuzk_error{0, nullptr}; }

static cuzk_error cuzk_err(int code, const char* msg)
{   return cuzk_error{code == 0 ? -1 : code, msg ? strdup(msg) : nullptr};   }

static cuzk_error cuzk_from_rust(const RustError::by_value& e)
{   return cuzk_error{e.code, e.message};   }

static double cuzk_ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(
        std::chrono::steady_clock::now() - t0).count();
}

extern "C" void cuzk_layout(size_t out[CUZK_LAYOUT_N])
{
    typedef Assignment<fr_t> A;
    out[CUZK_SIZEOF_FR] = sizeof(fr_t);
    out[CUZK_ALIGNOF_FR] = alignof(fr_t);
    out[CUZK_SIZEOF_FP] = sizeof(fp_t);
    out[CUZK_SIZEOF_G1] = sizeof(affine_t);
    out[CUZK_SIZEOF_G2] = sizeof(affine_fp2_t);
    out[CUZK_SIZEOF_ASSIGNMENT] = sizeof(A);
    out[CUZK_OFF_A_AUX_DENSITY] = offsetof(A, a_aux_density);
    out[CUZK_OFF_A_AUX_BIT_LEN] = offsetof(A, a_aux_bit_len);
    out[CUZK_OFF_A_AUX_POPCOUNT] = offsetof(A, a_aux_popcount);
    out[CUZK_OFF_B_INP_DENSITY] = offsetof(A, b_inp_density);
    out[CUZK_OFF_B_INP_BIT_LEN] = offsetof(A, b_inp_bit_len);
    out[CUZK_OFF_B_INP_POPCOUNT] = offsetof(A, b_inp_popcount);
    out[CUZK_OFF_B_AUX_DENSITY] = offsetof(A, b_aux_density);
    out[CUZK_OFF_B_AUX_BIT_LEN] = offsetof(A, b_aux_bit_len);
    out[CUZK_OFF_B_AUX_POPCOUNT] = offsetof(A, b_aux_popcount);
    out[CUZK_OFF_A] = offsetof(A, a);
    out[CUZK_OFF_B] = offsetof(A, b);
    out[CUZK_OFF_C] = offsetof(A, c);
    out[CUZK_OFF_ABC_SIZE] = offsetof(A, abc_size);
    out[CUZK_OFF_INP_DATA] = offsetof(A, inp_assignment_data);
    out[CUZK_OFF_INP_SIZE] = offsetof(A, inp_assignment_size);
    out[CUZK_OFF_AUX_DATA] = offsetof(A, aux_assignment_data);
    out[CUZK_OFF_AUX_SIZE] = offsetof(A, aux_assignment_size);
    out[CUZK_SIZEOF_PROOF] = sizeof(groth16_proof);
    out[CUZK_OFF_PROOF_A] = offsetof(groth16_proof, a);
    out[CUZK_OFF_PROOF_B] = offsetof(groth16_proof, b);
    out[CUZK_OFF_PROOF_C] = offsetof(groth16_proof, c);
}

extern "C" void cuzk_fr_from_u64(uint64_t v, cuzk_fr* out)
{
    fr_t x(v);
    memcpy(out, &x, sizeof(x));
}

extern "C" void cuzk_fr_mul(const cuzk_fr* a, const cuzk_fr* b, cuzk_fr* out)
{
    fr_t x, y;
    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    fr_t z = x * y;
    memcpy(out, &z, sizeof(z));
}

extern "C" void cuzk_fr_to_canonical(const cuzk_fr* a, uint8_t out[32])
{
    fr_t x;
    memcpy(&x, a, sizeof(x));
    fr_t::pow_t s;
    x.to_scalar(s);
    memcpy(out, s, 32);
}

extern "C" int cuzk_fr_is_one(const cuzk_fr* a)
{
    fr_t x;
    memcpy(&x, a, sizeof(x));
    return x.is_one() ? 1 : 0;
}

extern "C" int cuzk_g1_deserialize(const uint8_t in[96], cuzk_g1* out)
{
    static_assert(sizeof(cuzk_g1) == sizeof(affine_t), "G1 layout");
    return blst_p1_deserialize(reinterpret_cast<affine_t*>(out), in);
}

extern "C" int cuzk_g2_deserialize(const uint8_t in[192], cuzk_g2* out)
{
    static_assert(sizeof(cuzk_g2) == sizeof(affine_fp2_t), "G2 layout");
    return blst_p2_deserialize(reinterpret_cast<affine_fp2_t*>(out), in);
}

extern "C" int cuzk_device_count(int* n)
{
    *n = 0;
    return (int)cudaGetDeviceCount(n);
}

extern "C" int cuzk_device_info(int id, int with_free, cuzk_device* out)
{
    memset(out, 0, sizeof(*out));
    cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, id);
    if (err != cudaSuccess)
        return (int)err;
    strncpy(out->name, prop.name, sizeof(out->name) - 1);
    out->total_mem = prop.totalGlobalMem;
    out->major = prop.major;
    out->minor = prop.minor;
    out->multiprocessors = prop.multiProcessorCount;
    out->usable = prop.major >= 7 && prop.cooperativeLaunch;
    if (with_free) {
        int prev = 0;
        (void)cudaGetDevice(&prev);
        if ((err = cudaSetDevice(id)) != cudaSuccess)
            return (int)err;
        size_t free_mem = 0, total = 0;
        err = cudaMemGetInfo(&free_mem, &total);
        (void)cudaSetDevice(prev);
        if (err != cudaSuccess)
            return (int)err;
        out->free_mem = free_mem;
    }
    return 0;
}

extern "C" const char* cuzk_cuda_error_string(int code)
{   return cudaGetErrorString((cudaError_t)code);   }

extern "C" size_t cuzk_ngpus(void)
{   return ngpus();   }

extern "C" cuzk_error cuzk_srs_load(const char* path, void** out)
{
    *out = nullptr;
    try {
        *out = new SRS(path);
        // The reader runs on a thread; taking a slice waits for it, so that
        // a file that fails to read does so here and not inside a proof.
        (void)static_cast<SRS*>(*out)->get_b_g2_slice();
        return cuzk_ok();
    } catch (const sppark_error& e) {
        return cuzk_err(e.code(), e.what());
    } catch (const std::exception& e) {
        return cuzk_err(EINVAL, e.what());
    }
}

extern "C" void cuzk_srs_free(void* srs)
{   delete static_cast<SRS*>(srs);   }

extern "C" cuzk_error cuzk_prove(const cuzk_assignment* provers, size_t n,
                                 const cuzk_fr* r, const cuzk_fr* s,
                                 cuzk_proof* proofs, void* srs)
{
    static_assert(sizeof(cuzk_assignment) == sizeof(Assignment<fr_t>), "Assignment layout");
    static_assert(sizeof(cuzk_proof) == sizeof(groth16_proof), "proof layout");
    static_assert(sizeof(cuzk_fr) == sizeof(fr_t), "fr_t layout");
    try {
        return cuzk_from_rust(generate_groth16_proofs_c(
            reinterpret_cast<const Assignment<fr_t>*>(provers), n,
            reinterpret_cast<const fr_t*>(r), reinterpret_cast<const fr_t*>(s),
            reinterpret_cast<groth16_proof*>(proofs), *static_cast<SRS*>(srs)));
    } catch (const sppark_error& e) {
        return cuzk_err(e.code(), e.what());
    } catch (const std::exception& e) {
        return cuzk_err(EINVAL, e.what());
    }
}

typedef msm_t<bucket_t, point_t, affine_t, scalar_t> cuzk_msm_g1;

extern "C" cuzk_error cuzk_bench_msm(const cuzk_g1* points, const cuzk_fr* scalars,
                                     size_t n, cuzk_g1* out,
                                     double* ms_host, double* ms_resident)
{
    static_assert(sizeof(cuzk_g1) == sizeof(affine_t), "G1 layout");
    if (!ngpus())
        return cuzk_err(ENODEV, "No CUDA devices available");
    const affine_t* pts = reinterpret_cast<const affine_t*>(points);
    const fr_t* sc = reinterpret_cast<const fr_t*>(scalars);
    try {
        point_t res;
        // Points and scalars from host memory, as supraseal's tail MSMs.
        auto t0 = std::chrono::steady_clock::now();
        {
            cuzk_msm_g1 msm{nullptr, n};
            RustError e = msm.invoke(res, pts, n, sc, true);
            if (e.code)
                return cuzk_err(e.code, e.message);
        }
        *ms_host = cuzk_ms_since(t0);
        // Points resident on the device (loaded untimed), scalars from host.
        point_t res2;
        {
            cuzk_msm_g1 msm{pts, n};
            auto t1 = std::chrono::steady_clock::now();
            RustError e = msm.invoke(res2, (const affine_t*)nullptr, n, sc, true);
            if (e.code)
                return cuzk_err(e.code, e.message);
            *ms_resident = cuzk_ms_since(t1);
        }
        point_t::affine_t a = res, b = res2;
        static_assert(sizeof(a) == sizeof(cuzk_g1), "affine layout");
        if (memcmp(&a, &b, sizeof(a)) != 0)
            return cuzk_err(EIO, "MSM results differ between the two runs");
        memcpy(out, &a, sizeof(a));
        return cuzk_ok();
    } catch (const sppark_error& e) {
        return cuzk_err(e.code(), e.what());
    } catch (const std::exception& e) {
        return cuzk_err(EINVAL, e.what());
    }
}

class cuzk_ntt : public NTT {
public:
    static void run(fr_t* d, uint32_t lg, bool inverse, stream_t& stream)
    {
        NTT_internal(d, lg, InputOutputOrder::NN,
                     inverse ? Direction::inverse : Direction::forward,
                     Type::standard, stream);
    }
};

extern "C" cuzk_error cuzk_bench_ntt(cuzk_fr* inout, uint32_t lg, int inverse,
                                     double* ms_host, double* ms_device)
{
    if (!ngpus())
        return cuzk_err(ENODEV, "No CUDA devices available");
    fr_t* v = reinterpret_cast<fr_t*>(inout);
    try {
        const gpu_t& gpu = select_gpu(0);
        size_t n = (size_t)1 << lg;
        // Device-resident transform only (the H computation keeps a, b, c
        // on the device between transforms).
        {
            dev_ptr_t<fr_t> d{n, gpu};
            gpu.HtoD(&d[0], v, n);
            gpu.sync();
            auto t0 = std::chrono::steady_clock::now();
            cuzk_ntt::run(&d[0], lg, inverse != 0, gpu);
            gpu.sync();
            *ms_device = cuzk_ms_since(t0);
        }
        // With the transfers (sppark's NTT::Base), in place on inout.
        auto t1 = std::chrono::steady_clock::now();
        RustError e = NTT::Base(gpu, v, lg, NTT::InputOutputOrder::NN,
                                inverse ? NTT::Direction::inverse : NTT::Direction::forward,
                                NTT::Type::standard);
        *ms_host = cuzk_ms_since(t1);
        if (e.code)
            return cuzk_err(e.code, e.message);
        return cuzk_ok();
    } catch (const sppark_error& e) {
        return cuzk_err(e.code(), e.what());
    } catch (const std::exception& e) {
        return cuzk_err(EINVAL, e.what());
    }
}

#endif // __CUDA_ARCH__
