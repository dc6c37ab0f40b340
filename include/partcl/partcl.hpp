#pragma once
// Everything a program needs to embed partcl.
#include <partcl/version.hpp>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/device.hpp>
#include <partcl/runtime/error.hpp>
#include <partcl/runtime/event.hpp>
#include <partcl/runtime/filter.hpp>
#include <partcl/runtime/precision.hpp>
#include <partcl/runtime/real_buffer.hpp>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/jit/options.hpp>
#include <partcl/jit/program_cache.hpp>
#include <partcl/jit/source.hpp>
