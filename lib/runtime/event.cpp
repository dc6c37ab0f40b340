#include <partcl/runtime/error.hpp>
#include <partcl/runtime/event.hpp>

namespace partcl {

void Event::wait() const {
    if (valid()) check(event_.wait(), "clWaitForEvents");
}

double Event::seconds() const {
    if (!valid()) return 0.0;
    wait();
    cl_ulong start = 0, end = 0;
    check(event_.getProfilingInfo(CL_PROFILING_COMMAND_START, &start), "clGetEventProfilingInfo");
    check(event_.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
    return end > start ? double(end - start) * 1e-9 : 0.0;
}

} // namespace partcl
