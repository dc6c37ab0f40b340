#include <partcl/support/digest.hpp>
#include <partcl/support/error.hpp>

#include <openssl/evp.h>

namespace partcl {

namespace {

std::string digest(const EVP_MD* algorithm, const char* name, const void* data, std::size_t size) {
    unsigned char bytes[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(data, size, bytes, &length, algorithm, nullptr) != 1)
        throw Error(std::string("OpenSSL could not compute a ") + name + " digest");
    return std::string(reinterpret_cast<const char*>(bytes), length);
}

} // namespace

std::string sha1_digest(const void* data, std::size_t size) {
    return digest(EVP_sha1(), "SHA-1", data, size);
}

std::string sha256_digest(const void* data, std::size_t size) {
    return digest(EVP_sha256(), "SHA-256", data, size);
}

std::string to_hex(const std::string& bytes) {
    static const char hex[] = "0123456789abcdef";
    std::string text(2 * bytes.size(), '0');
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const auto byte = static_cast<unsigned char>(bytes[i]);
        text[2 * i] = hex[byte >> 4];
        text[2 * i + 1] = hex[byte & 15];
    }
    return text;
}

} // namespace partcl
