#pragma once
// Views of partcl's OpenCL objects as Boost.Compute ones, retained (not adopted), so the
// library's algorithms run on partcl's queues and buffers without copies.
#include <boost/compute/command_queue.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/compute/memory_object.hpp>

#include <partcl/runtime/context.hpp>

namespace partcl::detail::opencl {

inline boost::compute::command_queue boost_queue(Queue& queue) {
    return boost::compute::command_queue(queue.cl_queue()(), true);
}

template <class T>
boost::compute::buffer_iterator<T> boost_iterator(const cl::Buffer& buffer, std::size_t index) {
    return boost::compute::make_buffer_iterator<T>(boost::compute::buffer(buffer(), true), index);
}

} // namespace partcl::detail::opencl
