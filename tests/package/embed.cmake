# Run by the package.embed test (tests/package/CMakeLists.txt) as `cmake -P`, with
#   BUILD_DIR    the partcl build tree (already built)      CONFIG      its configuration
#   EXAMPLE_DIR  examples/embed                             WORK_DIR    scratch, recreated here
#   GENERATOR    CMake generator                            CXX_COMPILER  the same compiler
# Installs BUILD_DIR into WORK_DIR/prefix, configures examples/embed against that prefix only,
# builds it, runs it in float and double (and float again, which must load from the disk
# cache), then in float over two PoCL devices, and fails on any error.
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR EXAMPLE_DIR WORK_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "embed.cmake: ${var} not given")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Runs a command; stops the test with its output when it fails. Output lands in OUT.
function(step name)
  execute_process(COMMAND ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package.embed: ${name} failed (exit ${rc}):\n  ${ARGN}\n${out}")
  endif()
  message(STATUS "package.embed: ${name}: ok")
  set(OUT "${out}" PARENT_SCOPE)
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --config ${CONFIG} --prefix ${prefix})

set(configure_args
  -S ${EXAMPLE_DIR} -B ${example_build}
  -DCMAKE_BUILD_TYPE=${CONFIG}
  -DCMAKE_PREFIX_PATH=${prefix}
  # Only the fresh prefix may provide partcl: no package registries.
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
  # An OpenCL-only user has no CUDA toolkit: partcl's package must not ask for one, even when
  # partcl was built with the CUDA backend (it is a library partcl loads, not one users link).
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON)
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
# partcl_DIR must come from find_package, not from the environment of whoever runs the test.
unset(ENV{partcl_DIR})
unset(ENV{partcl_ROOT})
step("configure examples/embed" ${CMAKE_COMMAND} ${configure_args})

# find_package must have found the fresh install, not a build tree or a system-wide copy.
file(STRINGS ${example_build}/CMakeCache.txt found REGEX "^partcl_DIR:")
string(REGEX REPLACE "^partcl_DIR:[A-Z]+=" "" found "${found}")
file(REAL_PATH "${found}" found_real)
file(REAL_PATH "${prefix}" prefix_real)
string(FIND "${found_real}/" "${prefix_real}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "package.embed: find_package(partcl) used '${found}', not the install "
                      "in ${prefix}")
endif()
message(STATUS "package.embed: partcl_DIR = ${found}")

step("build examples/embed" ${CMAKE_COMMAND} --build ${example_build} --config ${CONFIG})

# The executable: single-config generators put it at the top, multi-config ones in <CONFIG>/.
set(exe ${example_build}/partcl_embed)
foreach(candidate ${example_build}/partcl_embed ${example_build}/partcl_embed.exe
                  ${example_build}/${CONFIG}/partcl_embed ${example_build}/${CONFIG}/partcl_embed.exe)
  if(EXISTS ${candidate})
    set(exe ${candidate})
    break()
  endif()
endforeach()

# A private program cache, so the test neither reads nor fills the user's.
set(ENV{PARTCL_CACHE_DIR} ${WORK_DIR}/cache)
unset(ENV{PARTCL_CACHE})

foreach(precision float double float)
  execute_process(COMMAND ${exe} ${precision}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(STATUS "package.embed: partcl_embed ${precision} (exit ${rc}):\n${out}")
  if(rc EQUAL 77 AND precision STREQUAL "double")
    message(STATUS "package.embed: double skipped: the selected device has no fp64")
  elseif(NOT rc EQUAL 0 OR NOT out MATCHES "\nPASS\n")
    message(FATAL_ERROR "package.embed: partcl_embed ${precision} failed (exit ${rc})")
  endif()
  if(seen_${precision} AND NOT out MATCHES "built \\(disk[ _]cache\\)")
    message(FATAL_ERROR "package.embed: the second float run did not load its program from "
                        "the disk cache in $ENV{PARTCL_CACHE_DIR}")
  endif()
  set(seen_${precision} TRUE)
endforeach()
# Two devices, where PoCL is the platform: the launch split between them must give the same bits
# as one device.
set(ENV{POCL_DEVICES} "pthread pthread")
execute_process(COMMAND ${exe} float --n 1500
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "package.embed: partcl_embed float --n 1500, POCL_DEVICES=pthread pthread (exit ${rc}):\n${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nPASS\n")
  message(FATAL_ERROR "package.embed: partcl_embed over two devices failed (exit ${rc})")
endif()
message(STATUS "package.embed: PASS")
