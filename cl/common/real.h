#ifndef PARTCL_COMMON_REAL_H
#define PARTCL_COMMON_REAL_H
/* The precision vocabulary. Every partcl kernel computes in `real`, which the host chooses per
 * program at run time: BuildOptions::precision adds -DPARTCL_DOUBLE=1 for double, nothing for
 * float. No kernel names float or double itself.
 *
 *   real, real2, real3, real4            scalar and vector types (real8: OpenCL only)
 *   REAL3(x, y, z), REAL4(x, y, z, w)    vectors from components (OpenCL's (real3)(...) literal
 *                                        is not C++); dot and length on real3 and real4 work on
 *                                        both backends
 *   REAL_C(1.5)                          a literal of type real (1.5f or 1.5)
 *   REAL_EPSILON, REAL_MAX, REAL_MIN     limits of real
 *   convert_real, convert_real4, ...     conversions to real
 *   real_rsqrt(x)                        1/sqrt(x); under PARTCL_FAST_MATH the device's fast one
 *   real_rsqrt_normal(x)                 the same for a normal x > 0, faster on NVIDIA GPUs
 *   PARTCL_REAL_IS_DOUBLE                1 for double, 0 for float
 *
 * The OpenCL math built-ins (sqrt, rsqrt, exp, fma, dot, length, ...) are overloaded for both,
 * so kernels call them directly. */
#include "portable.h"

#ifdef PARTCL_CUDA
/* CUDA: the vector types are structs without arithmetic; real.h supplies what kernels use. */
#if defined(PARTCL_DOUBLE) && PARTCL_DOUBLE
#define PARTCL_REAL_IS_DOUBLE 1
typedef double real;
typedef double2 real2;
typedef double3 real3;
typedef double4_16a real4;
#define REAL_C(x) x
#define REAL_EPSILON DBL_EPSILON
#define REAL_MAX DBL_MAX
#define REAL_MIN DBL_MIN
#define REAL3(x, y, z) make_double3(x, y, z)
#define REAL4(x, y, z, w) make_double4_16a(x, y, z, w)
#define real_rsqrt(x) rsqrt(x)
#else
#define PARTCL_REAL_IS_DOUBLE 0
typedef float real;
typedef float2 real2;
typedef float3 real3;
typedef float4 real4;
#define REAL_C(x) x##f
#define REAL_EPSILON FLT_EPSILON
#define REAL_MAX FLT_MAX
#define REAL_MIN FLT_MIN
#define REAL3(x, y, z) make_float3(x, y, z)
#define REAL4(x, y, z, w) make_float4(x, y, z, w)
/* CUDA's rsqrtf is the special-function unit's, within OpenCL's 2 ulp for rsqrt. */
#define real_rsqrt(x) rsqrtf(x)
#endif
#define convert_real(x) ((real)(x))
INLINE real dot(real3 a, real3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
INLINE real dot(real4 a, real4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
INLINE real length(real3 a) { return sqrt(dot(a, a)); }
INLINE real length(real4 a) { return sqrt(dot(a, a)); }
#elif defined(PARTCL_DOUBLE) && PARTCL_DOUBLE
#define PARTCL_REAL_IS_DOUBLE 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double3 real3;
typedef double4 real4;
typedef double8 real8;
#define REAL_C(x) x
#define REAL_EPSILON DBL_EPSILON
#define REAL_MAX DBL_MAX
#define REAL_MIN DBL_MIN
#define convert_real convert_double
#define convert_real2 convert_double2
#define convert_real3 convert_double3
#define convert_real4 convert_double4
#define real_rsqrt(x) rsqrt(x)
#else
#define PARTCL_REAL_IS_DOUBLE 0
typedef float real;
typedef float2 real2;
typedef float3 real3;
typedef float4 real4;
typedef float8 real8;
#define REAL_C(x) x##f
#define REAL_EPSILON FLT_EPSILON
#define REAL_MAX FLT_MAX
#define REAL_MIN FLT_MIN
#define convert_real convert_float
#define convert_real2 convert_float2
#define convert_real3 convert_float3
#define convert_real4 convert_float4
#ifdef PARTCL_FAST_MATH
#define real_rsqrt(x) native_rsqrt(x)
#else
#define real_rsqrt(x) rsqrt(x)
#endif
#endif

/* real_rsqrt_normal(x): 1/sqrt(x) for x a normal positive number (a softened r^2 + eps^2 with
 * eps^2 >= REAL_MIN). On NVIDIA GPUs in float, the flush-to-zero form of the special-function
 * unit's reciprocal square root: for normal inputs it returns what rsqrt does, without
 * rsqrt's scaling of denormal inputs (3 issued instructions fewer; docs/performance.md). */
#if defined(PARTCL_PTX) && !PARTCL_REAL_IS_DOUBLE
INLINE float real_rsqrt_normal(float x)
{
    float y;
    PTX_ASM("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
#else
#define real_rsqrt_normal(x) real_rsqrt(x)
#endif

#ifndef PARTCL_CUDA
#define REAL3(x, y, z) ((real3)((x), (y), (z)))
#define REAL4(x, y, z, w) ((real4)((x), (y), (z), (w)))
#endif

#endif /* PARTCL_COMMON_REAL_H */
