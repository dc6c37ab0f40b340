#pragma once
// The models' scenario tables (lib/run/{nbody,mps,pic,cosmology}_scenario.cpp), put together with io's
// by run/scenario.cpp. Private to partcl.
#include <vector>

#include "io/scenario_schema.hpp"

namespace partcl::detail {

const std::vector<Field>& gravity_table();     // [gravity]
const std::vector<Field>& integrator_table();  // [integrator]
void nbody_defaults(S& s, const Given& given);
const std::vector<Field>& fluid_table();       // [fluid]
const std::vector<Field>& plasma_table();      // [plasma] and [[plasma.species]]
const std::vector<Field>& cosmology_table();   // [cosmology]

} // namespace partcl::detail
