#pragma once
// The models' scenario tables (lib/run/{nbody,mps,pic,cosmology}_scenario.cpp), put together with io's
// by run/scenario.cpp. Private to partcl.
#include <cstdint>
#include <string>
#include <vector>

#include "io/scenario_schema.hpp"

namespace partcl::detail {

const std::vector<Field>& gravity_table();     // [gravity]
const std::vector<Field>& integrator_table();  // [integrator]
void nbody_defaults(S& s, const Given& given);
const std::vector<Field>& fluid_table();       // [fluid]
const std::vector<Field>& plasma_table();      // [plasma] and [[plasma.species]]
const std::vector<Field>& cosmology_table();   // [cosmology]

// The tree's rebuild and opening settings, checked alike for [gravity] and [cosmology]
// (nbody_scenario.cpp): empty where valid, else what is wrong.
std::string check_rebuild_every(std::uint64_t k);
std::string check_rebuild_growth(double g);
std::string check_relative_accuracy(double a);

} // namespace partcl::detail
