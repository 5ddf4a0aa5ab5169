/*
 * C interface of cuzk's wrapper around supraseal-c2 (cuzk_supraseal.cu).
 * Included by the cgo preamble of package gpu and by the wrapper itself, so
 * that both sides see the same declarations. The structs mirror the C++
 * types of supraseal-c2 and sppark; cuzk_layout reports the real C++ sizes
 * and offsets so that a test can assert they agree.
 */
#ifndef CUZK_SUPRASEAL_H
#define CUZK_SUPRASEAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An Fr element: 4 little-endian 64-bit limbs, Montgomery form (R = 2^256). */
typedef struct { uint64_t l[4]; } cuzk_fr;

/* A G1 affine point: x, y in Fp, 6 limbs each, Montgomery form; (0,0) is infinity. */
typedef struct { uint64_t x[6], y[6]; } cuzk_g1;
/* A G2 affine point: x, y in Fp2 (c0 then c1). */
typedef struct { uint64_t x[12], y[12]; } cuzk_g2;

/* supraseal-c2 Assignment<fr_t> (cuda/groth16_cuda.cu). */
typedef struct {
    const uint64_t* a_aux_density;
    size_t a_aux_bit_len;
    size_t a_aux_popcount;
    const uint64_t* b_inp_density;
    size_t b_inp_bit_len;
    size_t b_inp_popcount;
    const uint64_t* b_aux_density;
    size_t b_aux_bit_len;
    size_t b_aux_popcount;
    const cuzk_fr* a;
    const cuzk_fr* b;
    const cuzk_fr* c;
    size_t abc_size;
    const cuzk_fr* inp_assignment_data;
    size_t inp_assignment_size;
    const cuzk_fr* aux_assignment_data;
    size_t aux_assignment_size;
} cuzk_assignment;

/* supraseal-c2 groth16_proof. */
typedef struct {
    cuzk_g1 a;
    cuzk_g2 b;
    cuzk_g1 c;
} cuzk_proof;

/* An error: code 0 is success; message is malloc'd (or NULL) and owned by the caller. */
typedef struct {
    int code;
    char* message;
} cuzk_error;

/* Indices into the array cuzk_layout fills. */
enum {
    CUZK_SIZEOF_FR, CUZK_ALIGNOF_FR,
    CUZK_SIZEOF_FP, CUZK_SIZEOF_G1, CUZK_SIZEOF_G2,
    CUZK_SIZEOF_ASSIGNMENT,
    CUZK_OFF_A_AUX_DENSITY, CUZK_OFF_A_AUX_BIT_LEN, CUZK_OFF_A_AUX_POPCOUNT,
    CUZK_OFF_B_INP_DENSITY, CUZK_OFF_B_INP_BIT_LEN, CUZK_OFF_B_INP_POPCOUNT,
    CUZK_OFF_B_AUX_DENSITY, CUZK_OFF_B_AUX_BIT_LEN, CUZK_OFF_B_AUX_POPCOUNT,
    CUZK_OFF_A, CUZK_OFF_B, CUZK_OFF_C, CUZK_OFF_ABC_SIZE,
    CUZK_OFF_INP_DATA, CUZK_OFF_INP_SIZE, CUZK_OFF_AUX_DATA, CUZK_OFF_AUX_SIZE,
    CUZK_SIZEOF_PROOF, CUZK_OFF_PROOF_A, CUZK_OFF_PROOF_B, CUZK_OFF_PROOF_C,
    CUZK_LAYOUT_N
};

/* Fills out[0..CUZK_LAYOUT_N) with the sizes and offsets of the C++ types. */
void cuzk_layout(size_t out[CUZK_LAYOUT_N]);

/* Host-side fr_t arithmetic (blst), to check the Montgomery convention. */
void cuzk_fr_from_u64(uint64_t v, cuzk_fr* out);
void cuzk_fr_mul(const cuzk_fr* a, const cuzk_fr* b, cuzk_fr* out);
void cuzk_fr_to_canonical(const cuzk_fr* a, uint8_t out[32]);
int cuzk_fr_is_one(const cuzk_fr* a);

/* blst's uncompressed-point decoders, as supraseal's SRS reader calls them;
   return a BLST_ERROR code (0 = success). */
int cuzk_g1_deserialize(const uint8_t in[96], cuzk_g1* out);
int cuzk_g2_deserialize(const uint8_t in[192], cuzk_g2* out);

/* CUDA runtime: device enumeration. Return a cudaError_t code (0 = success). */
typedef struct {
    char name[256];
    size_t total_mem;
    size_t free_mem;
    int major, minor;
    int multiprocessors;
    int usable; /* sppark would use it: compute capability >= 7 and cooperative launch */
} cuzk_device;
int cuzk_device_count(int* n);
int cuzk_device_info(int id, int with_free, cuzk_device* out);
const char* cuzk_cuda_error_string(int code);
/* The number of devices sppark uses (0 when there are none). */
size_t cuzk_ngpus(void);

/* SRS (the .params file, read by supraseal's reader). */
cuzk_error cuzk_srs_load(const char* path, void** srs);
void cuzk_srs_free(void* srs);

/* generate_groth16_proofs_c: every device sppark sees, proofs in order. */
cuzk_error cuzk_prove(const cuzk_assignment* provers, size_t n,
                      const cuzk_fr* r, const cuzk_fr* s,
                      cuzk_proof* proofs, void* srs);

/* Benchmarks (device tests). Times in milliseconds. */
cuzk_error cuzk_bench_msm(const cuzk_g1* points, const cuzk_fr* scalars, size_t n,
                          cuzk_g1* out, double* ms_host, double* ms_resident);
cuzk_error cuzk_bench_ntt(cuzk_fr* inout, uint32_t lg, int inverse,
                          double* ms_host, double* ms_device);

#ifdef __cplusplus
}
#endif

#endif
