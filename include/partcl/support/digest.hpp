#pragma once
// Message digests for integrity checks: the program cache keys and checks its entries by
// SHA-256, checkpoints seal their payload with SHA-1 (the format's checksum since version 1).
// Computed by OpenSSL's libcrypto, a maintained implementation, rather than by hand.
#include <cstddef>
#include <string>

namespace partcl {

// The digest's bytes (20 for SHA-1, 32 for SHA-256), as the algorithm defines their order.
std::string sha1_digest(const void* data, std::size_t size);
std::string sha256_digest(const void* data, std::size_t size);

// Lower-case hexadecimal, two digits a byte.
std::string to_hex(const std::string& bytes);

} // namespace partcl
