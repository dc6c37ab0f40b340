// The CUDA backend's events: device time between two events recorded on a stream around one
// command.
#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

class CudaEvent final : public EventImpl {
public:
    CudaEvent(int ordinal, cudaStream_t stream) : ordinal_(ordinal) {
        use_device(ordinal_);
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&end_), "cudaEventCreate");
        check(cudaEventRecord(start_, stream), "cudaEventRecord");
    }
    ~CudaEvent() override {
        cudaEventDestroy(start_);
        cudaEventDestroy(end_);
    }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    void finish(cudaStream_t stream) { check(cudaEventRecord(end_, stream), "cudaEventRecord"); }

    void wait() override { check(cudaEventSynchronize(end_), "cudaEventSynchronize"); }
    double seconds() override {
        wait();
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start_, end_), "cudaEventElapsedTime");
        return double(ms) * 1e-3;
    }

    double seconds_since(EventImpl& earlier) override {
        wait();
        float ms = 0;
        check(cudaEventElapsedTime(&ms, static_cast<CudaEvent&>(earlier).end_, end_),
              "cudaEventElapsedTime");
        return ms > 0 ? double(ms) * 1e-3 : 0.0;
    }

    void wait_on(cudaStream_t stream) {
        check(cudaStreamWaitEvent(stream, end_, 0), "cudaStreamWaitEvent");
    }

private:
    int ordinal_;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
};

} // namespace

std::shared_ptr<EventImpl> timed(int ordinal, cudaStream_t stream,
                                 const std::function<void()>& command) {
    auto event = std::make_shared<CudaEvent>(ordinal, stream);
    command();
    event->finish(stream);
    return event;
}

void wait_on(cudaStream_t stream, EventImpl& event) {
    static_cast<CudaEvent&>(event).wait_on(stream);
}

} // namespace partcl::detail::cuda
