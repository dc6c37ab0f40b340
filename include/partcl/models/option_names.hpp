#pragma once
// The names of a model's enum options as scenarios and the command line spell them: one table
// per enum, read both ways (models/nbody/gravity_options.hpp, models/pic/pic_deposit.hpp).
#include <cstddef>
#include <string>
#include <vector>

namespace partcl {

template <class E>
struct OptionName {
    E value;
    const char* name;
};

template <class E, std::size_t N>
const char* name_of(const OptionName<E> (&table)[N], E value) noexcept {
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return "?";
}

// False (and `value` unchanged) for a name the table lacks.
template <class E, std::size_t N>
bool from_name(const OptionName<E> (&table)[N], const std::string& name, E& value) {
    for (const auto& entry : table)
        if (name == entry.name) return value = entry.value, true;
    return false;
}

template <class E, std::size_t N>
std::vector<std::string> names_of(const OptionName<E> (&table)[N]) {
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.name);
    return names;
}

} // namespace partcl
