// The OpenCL backend's events: a command's cl::Event, timed by the queue's profiling.
#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

namespace {

class OpenclEvent final : public EventImpl {
public:
    explicit OpenclEvent(cl::Event event) : event_(std::move(event)) {}
    void wait() override { check(event_.wait(), "clWaitForEvents"); }
    double seconds() override {
        wait();
        cl_ulong start = 0, end = 0;
        check(event_.getProfilingInfo(CL_PROFILING_COMMAND_START, &start), "clGetEventProfilingInfo");
        check(event_.getProfilingInfo(CL_PROFILING_COMMAND_END, &end), "clGetEventProfilingInfo");
        return end > start ? double(end - start) * 1e-9 : 0.0;
    }

    double seconds_since(EventImpl& earlier) override {
        wait();
        cl_ulong from = 0, to = 0;
        check(static_cast<OpenclEvent&>(earlier).event_.getProfilingInfo(CL_PROFILING_COMMAND_END, &from),
              "clGetEventProfilingInfo");
        check(event_.getProfilingInfo(CL_PROFILING_COMMAND_END, &to), "clGetEventProfilingInfo");
        return to > from ? double(to - from) * 1e-9 : 0.0;
    }

    cl_event native() const { return event_(); }

private:
    cl::Event event_;
};

} // namespace

std::shared_ptr<EventImpl> make_event(cl::Event event) {
    return std::make_shared<OpenclEvent>(std::move(event));
}

cl_event cl_event_of(EventImpl& event) { return static_cast<OpenclEvent&>(event).native(); }

} // namespace partcl::detail::opencl
