#ifndef PARTCL_COMMON_PORTABLE_H
#define PARTCL_COMMON_PORTABLE_H
/* The few spellings that differ between OpenCL C and CUDA C++, so one kernel file serves both
 * backends. Kernels write KERNEL, GLOBAL, LOCAL, CONSTANT, global_id(0), BARRIER_LOCAL, ...
 * Under OpenCL these are the OpenCL C words; the CUDA backend (PARTCL_CUDA) maps them to CUDA's.
 * Only 1-D and 2-D ids are needed by partcl's kernels. */

#ifdef PARTCL_CUDA
#define KERNEL extern "C" __global__
#define GLOBAL
#define LOCAL __shared__
#define CONSTANT const
#define PRIVATE
#define RESTRICT __restrict__
#define local_id(d) ((d) == 0 ? threadIdx.x : threadIdx.y)
#define group_id(d) ((d) == 0 ? blockIdx.x : blockIdx.y)
#define local_size(d) ((d) == 0 ? blockDim.x : blockDim.y)
#define num_groups(d) ((d) == 0 ? gridDim.x : gridDim.y)
#define global_id(d) (group_id(d) * local_size(d) + local_id(d))
#define global_size(d) (num_groups(d) * local_size(d))
#define BARRIER_LOCAL __syncthreads()
#define BARRIER_GLOBAL __syncthreads()
#else
#define KERNEL __kernel
#define GLOBAL __global
#define LOCAL __local
#define CONSTANT __constant
#define PRIVATE __private
#define RESTRICT restrict
#define local_id(d) get_local_id(d)
#define group_id(d) get_group_id(d)
#define local_size(d) get_local_size(d)
#define num_groups(d) get_num_groups(d)
#define global_id(d) get_global_id(d)
#define global_size(d) get_global_size(d)
#define BARRIER_LOCAL barrier(CLK_LOCAL_MEM_FENCE)
#define BARRIER_GLOBAL barrier(CLK_GLOBAL_MEM_FENCE)
#endif

#endif /* PARTCL_COMMON_PORTABLE_H */
