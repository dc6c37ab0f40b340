#pragma once
// How the electrostatic PIC deposits charge on its grid (models/pic/electrostatic_pic.hpp),
// without the device code.
#include <partcl/models/option_names.hpp>

namespace partcl {

enum class PicDeposit {
    atomic,  // one work-item per particle, float atomics (portable compare-and-swap loops)
    gather,  // one work-item per node over the particles of its 2^D cells: no atomics
};
inline constexpr OptionName<PicDeposit> pic_deposits[] = {{PicDeposit::gather, "gather"},
                                                          {PicDeposit::atomic, "atomic"}};
inline const char* to_string(PicDeposit deposit) noexcept { return name_of(pic_deposits, deposit); }

} // namespace partcl
