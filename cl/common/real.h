#ifndef PARTCL_COMMON_REAL_H
#define PARTCL_COMMON_REAL_H
/* The precision vocabulary. Every partcl kernel computes in `real`, which the host chooses per
 * program at run time: BuildOptions::precision adds -DPARTCL_DOUBLE=1 for double, nothing for
 * float. No kernel names float or double itself.
 *
 *   real, real2, real3, real4, real8     scalar and vector types
 *   REAL_C(1.5)                          a literal of type real (1.5f or 1.5)
 *   REAL_EPSILON, REAL_MAX, REAL_MIN     limits of real
 *   convert_real, convert_real4, ...     conversions to real
 *   real_rsqrt(x)                        1/sqrt(x); under PARTCL_FAST_MATH the device's fast one
 *   PARTCL_REAL_IS_DOUBLE                1 for double, 0 for float
 *
 * The OpenCL math built-ins (sqrt, rsqrt, exp, fma, dot, length, ...) are overloaded for both,
 * so kernels call them directly. */
#include "portable.h"

#if defined(PARTCL_DOUBLE) && PARTCL_DOUBLE
#define PARTCL_REAL_IS_DOUBLE 1
#ifndef PARTCL_CUDA
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
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

#endif /* PARTCL_COMMON_REAL_H */
