#pragma once
// The one place partcl includes the Khronos C++ bindings, so every translation unit (ours and
// the embedding program's) sees the same configuration. Kernels are OpenCL C 1.2, and the host
// side asks for nothing newer, so any 1.2+ driver (PoCL, NVIDIA, Oclgrind) works.
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#include <CL/opencl.hpp>
