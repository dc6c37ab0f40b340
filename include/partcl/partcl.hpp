#pragma once
// Everything a program needs to embed partcl, layer by layer (docs/design.md). The native
// OpenCL and CUDA objects are in the interop headers, partcl/backend/opencl/interop.hpp and
// partcl/backend/cuda/interop.hpp, which a program includes itself.
#include <partcl/version.hpp>

#include <partcl/support/atomic_file.hpp>
#include <partcl/support/digest.hpp>
#include <partcl/support/error.hpp>

#include <partcl/backend/backend.hpp>
#include <partcl/backend/build.hpp>
#include <partcl/backend/device_info.hpp>
#include <partcl/backend/error.hpp>
#include <partcl/backend/precision.hpp>

#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/device.hpp>
#include <partcl/runtime/event.hpp>
#include <partcl/runtime/filter.hpp>
#include <partcl/runtime/memory.hpp>
#include <partcl/runtime/profile.hpp>
#include <partcl/runtime/queue.hpp>
#include <partcl/runtime/real_buffer.hpp>

#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/jit/program_cache.hpp>
#include <partcl/jit/source.hpp>

#include <partcl/sched/halo.hpp>
#include <partcl/sched/mirror.hpp>
#include <partcl/sched/multi_device_launch.hpp>
#include <partcl/sched/ordered_sum.hpp>
#include <partcl/sched/partition.hpp>
#include <partcl/sched/partitioned_output.hpp>
#include <partcl/sched/scheduler.hpp>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/algorithm/slab_selection.hpp>
#include <partcl/algorithm/fft.hpp>
#include <partcl/algorithm/reduce.hpp>
#include <partcl/algorithm/scan.hpp>
#include <partcl/algorithm/sort_by_key.hpp>

#include <partcl/dist/allgather.hpp>
#include <partcl/dist/block_ring.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/dist/device_share.hpp>
#include <partcl/dist/distributor.hpp>
#include <partcl/dist/environment.hpp>

#include <partcl/integrate/integrator.hpp>
#include <partcl/integrate/vector_ops.hpp>

#include <partcl/models/mps/mps_fluid.hpp>
#include <partcl/models/mps/mps_options.hpp>
#include <partcl/models/mps/mps_particles.hpp>
#include <partcl/models/mps/mps_reference.hpp>
#include <partcl/models/mps/mps_tank.hpp>
#include <partcl/models/mps/mps_validation.hpp>
#include <partcl/models/cosmology/comoving_leapfrog.hpp>
#include <partcl/models/cosmology/cosmology.hpp>
#include <partcl/models/cosmology/halofit.hpp>
#include <partcl/models/cosmology/initial_conditions.hpp>
#include <partcl/models/nbody/bodies.hpp>
#include <partcl/models/nbody/dense_gravity.hpp>
#include <partcl/models/nbody/dense_reference.hpp>
#include <partcl/models/nbody/device_bodies.hpp>
#include <partcl/models/nbody/distributed_dense_gravity.hpp>
#include <partcl/models/nbody/distributed_tree_gravity.hpp>
#include <partcl/models/nbody/essential_exchange.hpp>
#include <partcl/models/nbody/essential_tree_gravity.hpp>
#include <partcl/models/nbody/ewald_reference.hpp>
#include <partcl/models/nbody/gathered_bodies.hpp>
#include <partcl/models/nbody/gravity.hpp>
#include <partcl/models/nbody/gravity_options.hpp>
#include <partcl/models/nbody/gravity_parameters.hpp>
#include <partcl/models/nbody/nbody_system.hpp>
#include <partcl/models/nbody/particle_mesh.hpp>
#include <partcl/models/nbody/travelling_bodies.hpp>
#include <partcl/models/nbody/tree_gravity.hpp>
#include <partcl/models/nbody/tree_layout.hpp>
#include <partcl/models/nbody/tree_pm_gravity.hpp>
#include <partcl/models/nbody/tree_top.hpp>
#include <partcl/models/option_names.hpp>
#include <partcl/models/pic/electrostatic_pic.hpp>
#include <partcl/models/pic/pic_deposit.hpp>
#include <partcl/models/pic/pic_particles.hpp>
#include <partcl/models/pic/pic_plasma.hpp>
#include <partcl/models/pic/pic_reference.hpp>

#include <partcl/diag/compensated_sum.hpp>
#include <partcl/diag/nbody_diagnostics.hpp>

#include <partcl/io/checkpoint.hpp>
#include <partcl/io/csv_log.hpp>
#include <partcl/io/initial_conditions.hpp>
#include <partcl/io/plot.hpp>
#include <partcl/io/render.hpp>
#include <partcl/io/scenario.hpp>
#include <partcl/io/snapshot.hpp>
#include <partcl/io/units.hpp>

#include <partcl/run/cosmology_run.hpp>
#include <partcl/run/mps_run.hpp>
#include <partcl/run/nbody_run.hpp>
#include <partcl/run/pic_run.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/run_model.hpp>
#include <partcl/run/scenario.hpp>
