#pragma once
// The constants of Newtonian gravity with Plummer softening, apart from the gravity models so a
// scenario can carry them without device code.

namespace partcl {

struct GravityParameters {
    double G = 1.0;
    double softening = 0.0;  // Plummer eps; 0 is allowed (coincident bodies are skipped)
};

} // namespace partcl
