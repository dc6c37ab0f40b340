#pragma once
// Scenarios: every setting of a run, read from TOML (docs/scenarios.md documents each key;
// run/scenario.hpp reads, checks and writes them). A
// scenario is of one model: N-body gravity ([scenario] model = "nbody", the default; tables
// [bodies], [gravity], [integrator], ...), the MPS fluid (model = "mps"; table [fluid]) or the
// electrostatic PIC plasma (model = "pic"; table [plasma]). A
// table or key of the other model is an error. Built-in scenarios are the TOML files of
// examples/scenarios/, compiled into the library and parsed like a user's file.
//
// Every problem in a scenario throws partcl::UsageError with a one-line message that names the
// source, the line, the table and the key, e.g.
//   scenario.toml:12: [integrator] dt must be positive (got -1)
//   scenario.toml:7: unknown key 'sofening' in [gravity] (known: model, G, softening)
//   scenario.toml:3:9: malformed TOML: expected '=' ...
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <partcl/io/render.hpp>
#include <partcl/io/units.hpp>
#include <partcl/models/cosmology/cosmology.hpp>
#include <partcl/models/mps/mps_options.hpp>
#include <partcl/models/nbody/gravity_options.hpp>
#include <partcl/models/nbody/gravity_parameters.hpp>
#include <partcl/models/option_names.hpp>
#include <partcl/models/pic/pic_deposit.hpp>
#include <partcl/models/pic/pic_plasma.hpp>
#include <partcl/backend/precision.hpp>

namespace partcl {

// [bodies] initial: the kind of N-body initial conditions (io/initial_conditions.hpp).
enum class InitialConditions { galaxies, plummer, kepler, cube, snapshot };
inline constexpr OptionName<InitialConditions> initial_conditions[] = {
    {InitialConditions::galaxies, "galaxies"}, {InitialConditions::plummer, "plummer"},
    {InitialConditions::kepler, "kepler"},     {InitialConditions::cube, "cube"},
    {InitialConditions::snapshot, "snapshot"}};
inline const char* to_string(InitialConditions initial) noexcept {
    return name_of(initial_conditions, initial);
}

// [fluid] setup and [plasma] setup (run/mps_run.cpp and run/pic_run.cpp build them).
enum class FluidSetup { dambreak, hydrostatic };
inline constexpr OptionName<FluidSetup> fluid_setups[] = {{FluidSetup::dambreak, "dambreak"},
                                                          {FluidSetup::hydrostatic, "hydrostatic"}};
inline const char* to_string(FluidSetup setup) noexcept { return name_of(fluid_setups, setup); }

enum class PlasmaSetup { langmuir, two_stream, species };
inline constexpr OptionName<PlasmaSetup> plasma_setups[] = {{PlasmaSetup::langmuir, "langmuir"},
                                                            {PlasmaSetup::two_stream, "two-stream"},
                                                            {PlasmaSetup::species, "species"}};
inline const char* to_string(PlasmaSetup setup) noexcept { return name_of(plasma_setups, setup); }

// [cosmology] initial: where a cosmological run's bodies come from: a lattice displaced by
// second- or first-order Lagrangian perturbation theory, or a GADGET HDF5 file (MUSIC, N-GenIC).
enum class CosmologyStart { second_order, zeldovich, gadget };
inline constexpr OptionName<CosmologyStart> cosmology_starts[] = {
    {CosmologyStart::second_order, "2lpt"},
    {CosmologyStart::zeldovich, "zeldovich"},
    {CosmologyStart::gadget, "gadget"}};
inline const char* to_string(CosmologyStart start) noexcept { return name_of(cosmology_starts, start); }

// The members' initialisers are the defaults of missing keys; they are the built-in `galaxies`
// scenario (the default run) except for [scenario] name and description and [units] (none).
struct Scenario {
    // [scenario]
    std::string name = "unnamed";
    std::string description;
    std::string model = "nbody";  // nbody | mps | pic | cosmology

    // [bodies]
    InitialConditions initial = InitialConditions::galaxies;
    std::uint64_t n = 16384;           // kepler: 2; snapshot: 0 = as many as the file has
    std::uint64_t seed = 42;
    std::filesystem::path snapshot;    // initial = "snapshot"

    struct Plummer {
        double scale = 1.0;       // Plummer radius a
        double total_mass = 1.0;
    } plummer;

    struct Galaxies {
        double separation = 3.0;        // initial centre distance along x
        double impact_parameter = 0.5;  // initial centre offset along y
        double approach_speed = 0.8;    // relative speed along x
        double mass_ratio = 1.0;        // M2 / M1
        double total_mass = 1.0;        // M1 + M2
        double scale = 0.4;             // Plummer radius of both
    } galaxies;

    struct Kepler {
        double eccentricity = 0.5;
        double semi_major_axis = 1.0;
        std::array<double, 2> masses{0.5, 0.5};
    } kepler;

    struct Cube {
        double side = 1.0;
        double total_mass = 1.0;
        double velocity = 0.0;  // each velocity component uniform in [-velocity, velocity]
    } cube;

    // [gravity]
    GravityModelKind gravity_model = GravityModelKind::dense;
    GravityParameters gravity{1.0, 0.04};
    // model = "tree": the tree's options (models/nbody/gravity_options.hpp; list_size is no
    // key: unset, TreeGravity chooses it).
    TreeOptions tree;
    TreeRanks tree_ranks = TreeRanks::gather;  // the tree over MPI ranks

    // [units]: what one code unit of length, mass and velocity is ("1 kpc", "1e10 Msun",
    // "1 km/s"; io/units.hpp), written to snapshots for their readers. None ("") is a run
    // without physical units; two derive the third from [gravity] G; three derive G.
    struct Units {
        std::string length, mass, velocity;
    } units;

    // [integrator]
    std::string integrator = "leapfrog";
    double dt = 0.025;          // adaptive methods: the first trial step
    double atol = 1e-8;         // dopri5
    double rtol = 1e-8;         // dopri5
    double damping = 1.0;       // velocities *= damping after every step; 1 = off

    // [run]
    std::uint64_t steps = 200;
    // > 0: run to this simulated time instead of `steps` (fixed-step integrators take
    // end_time / dt steps, a whole number; dopri5 shortens its last step to land on it).
    double end_time = 0;
    Precision precision = Precision::float32;
    std::uint64_t diagnostics_every = 10;  // 0 = first and last step only
    std::uint64_t snapshot_every = 100;    // 0 = only at the end
    std::uint64_t frame_every = 10;        // 0 = no frames
    std::uint64_t checkpoint_every = 100;  // 0 = only at the end

    // [render] (MPS runs use width only: the pressure frames' height follows the tank)
    RenderSettings render;

    // [fluid]: model = "mps" (run/mps_run.hpp). The defaults are the built-in `dambreak`. The
    // set-up is mps_tank's: a block of water in the corner of a tank, the last axis up; sizes
    // along x (width), y in 3-D (depth) and up (height), each a whole multiple of the spacing.
    // The fluid's constants (density, viscosity, sound_speed, re_ratio, re_laplacian_ratio,
    // collision_ratio, restitution, courant) are the model's options with their defaults
    // (models/mps/mps_options.hpp).
    struct Fluid : MpsOptions {
        FluidSetup setup = FluidSetup::dambreak;  // hydrostatic: water as wide as the tank
        int dimensions = 2;
        double spacing = 0.003125;       // l0 [m]
        double water_width = 0.2, water_height = 0.2, water_depth = 0.2;  // depth: 3-D only
        double tank_width = 0.8, tank_height = 0.3, tank_depth = 0.2;
        std::uint64_t dummy_layers = 3;
        double gravity = 9.81;           // [m/s^2], pointing down the last axis
        double end_time = 0.25;          // [s]
        std::uint64_t steps = 0;         // > 0: stop after this many steps instead of end_time
        double sample_every = 0.0025;    // [s] between CSV rows (front or bottom pressure)
        double frame_every = 0.025;      // [s] between PNG frames; 0 = none
        // [s] between checkpoints, each written at the first sample from then on (so it never
        // changes the step sequence); 0 = only at the end
        double checkpoint_every = 0.025;
    } fluid;

    // [plasma]: model = "pic" (run/pic_run.hpp). The defaults are the built-in `langmuir`.
    // Periodic, epsilon0 = 1 (models/pic/pic_plasma.hpp), a neutralising background for the
    // net charge; mode `mode` seeded by a displacement. Set-ups: langmuir and two-stream, 1-D
    // cold electrons with omega_p = 1 (time in 1/omega_p); species, 1-D, 2-D or 3-D, the
    // [[plasma.species]] list (models/pic/pic_plasma.hpp's PlasmaSpecies) on a cubic grid of
    // `cells` per axis.
    struct Plasma {
        PlasmaSetup setup = PlasmaSetup::langmuir;
        int dimensions = 1;               // species: 1, 2 or 3; langmuir, two-stream: 1
        std::uint64_t cells = 64;         // grid nodes per axis (the FFT's size)
        double length = 6.283185307179586;  // box length L per axis; k = 2 pi mode / L
        std::uint64_t particles_per_cell = 32;  // langmuir, two-stream (an even total)
        double amplitude = 0.006;         // langmuir, two-stream: displacement amplitude
        std::array<std::uint64_t, 3> mode{1, 0, 0};  // the seeded wave's mode per axis
        double beam_speed = 0;            // two-stream: each beam's speed v0 (> 0)
        std::uint64_t seed = 42;          // species: thermal velocities
        double dt = 0.1;                  // [1/omega_p]
        double end_time = 37.69911184307752;  // six plasma periods
        PicDeposit deposit = PicDeposit::gather;
        std::uint64_t sample_every = 1;   // steps between diagnostics.csv rows
        std::uint64_t frame_every = 20;   // steps between phase-space frames; 0 = none
        std::uint64_t checkpoint_every = 0;  // steps between checkpoints; 0 = at the end only
        std::vector<PlasmaSpecies> species;  // species: [[plasma.species]]; else empty
    } plasma;

    // [cosmology]: model = "cosmology" (run/cosmology_run.hpp), a Lambda-CDM box of dark matter
    // under TreePM gravity (models/nbody/tree_pm_gravity.hpp) integrated in the scale factor
    // (models/cosmology/). The defaults are the built-in `cosmology`. Units as
    // models/cosmology/cosmology.hpp says: Mpc/h, 1e10 Msun/h, km/s. The background's
    // parameters are the base's (omega_matter, omega_lambda, omega_baryon, h, sigma8,
    // spectral_index, temperature_cmb).
    struct Cosmology : partcl::cosmology::Parameters {
        CosmologyStart initial = CosmologyStart::second_order;
        std::filesystem::path initial_file;  // gadget: the HDF5 file (relative: to the scenario's)
        std::uint64_t side = 64;             // 2lpt, zeldovich: side^3 bodies on a lattice
        double box = 100;                    // [Mpc/h]; gadget: the file's BoxSize
        std::uint64_t seed = 1;              // 2lpt, zeldovich: the white noise's
        bool fixed_amplitude = false;        // 2lpt, zeldovich: every mode at its mean amplitude
        double start_redshift = 49;          // 2lpt, zeldovich; gadget: the file's
        // Snapshots, power spectra and a frame at each, in decreasing order; the run ends at
        // the last.
        std::vector<double> output_redshifts{3, 2, 1, 0};
        // Steps from the start to the last output, spread uniformly in ln a (each interval
        // between outputs gets its share, at least one).
        std::uint64_t steps = 48;
        std::uint64_t mesh = 0;    // PM mesh nodes per axis; 0: twice the bodies' per axis (at least 8)
        double split_cells = 1.25;  // r_s in mesh cells
        double cut_splits = 5.0;   // the short range's reach in r_s
        double theta = 0.4;        // the short-range walk's opening angle (TreePmOptions' default)
        std::uint64_t rebuild_every = 16;  // most evaluations per tree build, refitted in between
        double rebuild_growth = 0.02;      // a refit whose leaves grew more is a build (TreePmOptions' defaults)
        double relative_accuracy = 0.015;  // the walk's relative criterion (TreePmOptions' default)
        double softening = 1.0 / 30;  // Plummer softening in mean interparticle spacings
        std::uint64_t sample_every = 4;      // steps between diagnostics.csv rows
        std::uint64_t frame_every = 8;       // steps between density frames; 0: none
        std::uint64_t checkpoint_every = 16; // steps between checkpoints; 0: at the end only
    } cosmology;
};

// The built-in scenarios' TOML (examples/scenarios/NAME.toml, compiled into the library), by
// name; UsageError naming the known ones for an unknown name. run/scenario.hpp parses them.
const std::string& builtin_scenario_toml(const std::string& name);
std::vector<std::string> builtin_scenario_names();

// The scenario's [units] as numbers (io/units.hpp); a default UnitSystem when it has none.
UnitSystem unit_system(const Scenario& scenario);

// Names accepted for [scenario] model and [bodies] initial.
const std::vector<std::string>& model_names();
const std::vector<std::string>& initial_condition_names();

} // namespace partcl
