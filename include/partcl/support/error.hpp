#pragma once
// The base of every error partcl throws, in the lowest layer so that every layer can throw it
// (backend/error.hpp adds the kinds a caller reacts to differently).
#include <stdexcept>

namespace partcl {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace partcl
