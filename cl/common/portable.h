#ifndef PARTCL_COMMON_PORTABLE_H
#define PARTCL_COMMON_PORTABLE_H
/* The few spellings that differ between OpenCL C and CUDA C++, so one kernel file serves both
 * backends. Kernels write KERNEL, GLOBAL, LOCAL (local arrays), LOCAL_SPACE (pointers into
 * them: `LOCAL_SPACE real* p`), CONSTANT, INLINE (helper functions),
 * WORK_GROUP_SIZE(n) (between KERNEL and the return type), global_id(0) (global_offset(0)
 * included, as OpenCL's get_global_id), BARRIER_LOCAL,
 * ATOMIC_OR(p, v) (p: GLOBAL uint*; 32-bit atomics are core in OpenCL C 1.1),
 * ATOMIC_ADD_FLOAT(p, v) and ATOMIC_ADD_DOUBLE(p, v) (p: GLOBAL float* / double*; statements,
 * not expressions: OpenCL C 1.2 has no float atomics, so there they are compare-and-swap loops
 * on the bit pattern (floats on NVIDIA's OpenCL take the hardware's add, in PTX), the double
 * one needing cl_khr_int64_base_atomics: it is defined, with
 * PARTCL_HAS_ATOMIC_ADD_DOUBLE, only where the device has them), ...
 * Under OpenCL these are the OpenCL C words; the CUDA backend (PARTCL_CUDA, compiled by NVRTC)
 * maps them to CUDA's, and supplies the OpenCL C types and limits CUDA lacks (uint, FLT_MAX,
 * ...). Only 1-D and 2-D ids are needed by partcl's kernels.
 *
 * PARTCL_PTX is defined where the compiler takes inline PTX assembly, written
 * PTX_ASM("..." : outputs : inputs): CUDA, and NVIDIA's OpenCL (the OpenCL backend defines it
 * for programs built for NVIDIA devices only). */

#ifdef PARTCL_CUDA
#ifndef PARTCL_PTX
#define PARTCL_PTX 1
#endif
#define PTX_ASM asm
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long ulong;
/* NVRTC has no <float.h>. */
#ifndef FLT_MAX
#define FLT_MAX 3.402823466e+38f
#define FLT_MIN 1.175494351e-38f
#define FLT_EPSILON 1.192092896e-07f
#define DBL_MAX 1.7976931348623158e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-16
#endif
#define KERNEL extern "C" __global__
#define INLINE __device__ inline
#define WORK_GROUP_SIZE(n) __launch_bounds__(n)
#define GLOBAL
#define LOCAL __shared__
#define LOCAL_SPACE
#define CONSTANT const
#define PRIVATE
#define RESTRICT __restrict__
#define local_id(d) ((d) == 0 ? threadIdx.x : threadIdx.y)
#define group_id(d) ((d) == 0 ? blockIdx.x : blockIdx.y)
#define local_size(d) ((d) == 0 ? blockDim.x : blockDim.y)
#define num_groups(d) ((d) == 0 ? gridDim.x : gridDim.y)
/* CUDA has no global offset: the backend writes a launch's offset here before it runs the
 * kernel (only along dimension 0, the one partcl splits). */
__constant__ unsigned int partcl_global_offset;
#define global_offset(d) ((d) == 0 ? partcl_global_offset : 0u)
#define global_id(d) (global_offset(d) + group_id(d) * local_size(d) + local_id(d))
#define global_size(d) (num_groups(d) * local_size(d))
#define BARRIER_LOCAL __syncthreads()
#define BARRIER_GLOBAL __syncthreads()
#define ATOMIC_OR(p, v) atomicOr((p), (v))
/* atomicAdd on double needs sm_60, below every architecture partcl builds for. */
#define ATOMIC_ADD_FLOAT(p, v) atomicAdd((p), (v))
#define ATOMIC_ADD_DOUBLE(p, v) atomicAdd((p), (v))
#define PARTCL_HAS_ATOMIC_ADD_DOUBLE 1
#else
#define PTX_ASM __asm__
#define KERNEL __kernel
#define INLINE inline
#define WORK_GROUP_SIZE(n) __attribute__((reqd_work_group_size(n, 1, 1)))
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_SPACE __local
#define CONSTANT __constant
#define PRIVATE __private
#define RESTRICT restrict
#define local_id(d) get_local_id(d)
#define group_id(d) get_group_id(d)
#define local_size(d) get_local_size(d)
#define num_groups(d) get_num_groups(d)
#define global_offset(d) get_global_offset(d)
#define global_id(d) get_global_id(d)
#define global_size(d) get_global_size(d)
#define BARRIER_LOCAL barrier(CLK_LOCAL_MEM_FENCE)
#define BARRIER_GLOBAL barrier(CLK_GLOBAL_MEM_FENCE)
#define ATOMIC_OR(p, v) atomic_or((p), (v))
#ifdef PARTCL_PTX
/* NVIDIA's OpenCL: the hardware's float add at the address (what CUDA's atomicAdd compiles to
 * when its result is unused), where a compare-and-swap loop retries under contention; a global
 * pointer is a 64-bit global address there. */
#define ATOMIC_ADD_FLOAT(p, v) \
    PTX_ASM volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"((float)(v)) : "memory")
#else
/* The first guess of the old value is 0 (a plain read would race with the other adders); a
 * failed swap returns the value seen, which becomes the next guess. Bit patterns compare, so
 * -0 and NaN terminate too. */
#define ATOMIC_ADD_FLOAT(p, v)                                                                  \
    do {                                                                                        \
        volatile GLOBAL uint* bits_ = (volatile GLOBAL uint*)(p);                               \
        const float add_ = (v);                                                                 \
        uint guess_ = 0u;                                                                       \
        for (;;) {                                                                              \
            const uint seen_ = atomic_cmpxchg(bits_, guess_, as_uint(as_float(guess_) + add_)); \
            if (seen_ == guess_) break;                                                         \
            guess_ = seen_;                                                                     \
        }                                                                                       \
    } while (0)
#endif
/* 64-bit compare-and-swap is an extension; without it there is no ATOMIC_ADD_DOUBLE, and
 * kernels that need it are left out (the host refuses their use by name: pic's
 * require_deposit). */
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define PARTCL_HAS_ATOMIC_ADD_DOUBLE 1
#define ATOMIC_ADD_DOUBLE(p, v)                                                                 \
    do {                                                                                        \
        volatile GLOBAL ulong* bits_ = (volatile GLOBAL ulong*)(p);                             \
        const double add_ = (v);                                                                \
        ulong guess_ = 0ul;                                                                     \
        for (;;) {                                                                              \
            const ulong seen_ =                                                                 \
                atom_cmpxchg(bits_, guess_, as_ulong(as_double(guess_) + add_));                \
            if (seen_ == guess_) break;                                                         \
            guess_ = seen_;                                                                     \
        }                                                                                       \
    } while (0)
#endif
#endif

#endif /* PARTCL_COMMON_PORTABLE_H */
