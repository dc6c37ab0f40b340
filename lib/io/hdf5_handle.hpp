#pragma once
// What snapshot_write.cpp and snapshot_read.cpp share of HDF5's C API: one lock, quiet error
// stacks, the innermost message, and identifiers closed by their owners. Private to partcl.
#include <hdf5.h>

#include <mutex>
#include <string>

namespace partcl::detail {

// The HDF5 library Debian ships is not thread-safe; partcl never calls it from two threads.
inline std::mutex& hdf5_mutex() {
    static std::mutex mutex;
    return mutex;
}

// Turns off HDF5's printing of its error stack for the lifetime of the guard; our messages say
// what went wrong instead.
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    H5E_auto2_t function_ = nullptr;
    void* data_ = nullptr;
};

// The innermost message of HDF5's current error stack ("truncated file: eof = ..."), or "".
// Must be called right after the failing call: the next API call clears the stack.
inline std::string hdf5_detail() {
    std::string detail;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* error, void* out) -> herr_t {
            auto& text = *static_cast<std::string*>(out);
            if (n == 0 && error && error->desc) text = error->desc;
            return 0;
        },
        &detail);
    return detail;
}

// One HDF5 identifier, closed by the right function when the owner goes.
class Handle {
public:
    using Close = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Close close) : id_(id), close_(close) {}
    Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = other.id_;
            close_ = other.close_;
            other.id_ = -1;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }

    hid_t get() const noexcept { return id_; }
    bool valid() const noexcept { return id_ >= 0; }
    // Closes now and reports whether that worked (H5Fclose can fail when data cannot be
    // flushed).
    bool close() {
        const hid_t id = id_;
        id_ = -1;
        return id < 0 || close_(id) >= 0;
    }

private:
    void reset() noexcept {
        if (id_ >= 0) close_(id_);
        id_ = -1;
    }
    hid_t id_ = -1;
    Close close_ = nullptr;
};

} // namespace partcl::detail
