# Shared build helpers. Every limbic target gets the same warnings and include root.
include(GNUInstallDirs)

set(LIMBIC_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter
    # Designated initializers ({.name = "x"}) leave the other fields at their defaults on purpose.
    -Wno-missing-field-initializers)
if(LIMBIC_WERROR)
  list(APPEND LIMBIC_WARNINGS -Werror)
endif()

# Precompiled headers (GCC only; clang, the fuzz build's compiler, checks PCH flags more strictly). Parsing the
# third-party headers nearly every translation unit includes is about half of a build without debug information
# (on the 2-core CI machine: Eigen/Core 1.5 s, yaml-cpp 1.2 s, GoogleTest 1.6 s, cppzmq 0.9 s per unit). Two
# shared PCHs, built once: one for libraries, programs and benchmarks, one with GoogleTest for tests. Every target
# of a build has the same flags, so each unit can load them (-Winvalid-pch, an error under -Werror, says if not).
set(LIMBIC_USE_PCH OFF)
if(LIMBIC_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(LIMBIC_USE_PCH ON)
  set(LIMBIC_PCH_HEADERS <algorithm> <chrono> <cmath> <cstdint> <functional> <map> <memory> <optional> <span>
      <sstream> <string> <string_view> <vector> <Eigen/Core> <flatbuffers/flatbuffers.h> <zmq.hpp>
      <yaml-cpp/yaml.h>)
  # GCC 12 forgets, for code inlined from a precompiled header, that libstdc++ is a system header: its known false
  # flow warnings on `std::string&& + "..."` (-Warray-bounds, -Wstringop-overflow, -Wstringop-overread, -Wrestrict;
  # GCC PRs 105329, 105651) then surface in our units and fail -Werror. Without the PCH they stay hidden in the
  # system header. The ASan+UBSan stage checks bounds at run time.
  list(APPEND LIMBIC_WARNINGS -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread -Wno-restrict)
  add_library(limbic_pch STATIC ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
  target_compile_options(limbic_pch PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(limbic_pch PRIVATE Eigen3::Eigen flatbuffers::flatbuffers cppzmq yaml-cpp)
  target_precompile_headers(limbic_pch PRIVATE ${LIMBIC_PCH_HEADERS})
  if(LIMBIC_BUILD_TESTS)
    add_library(limbic_test_pch STATIC ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
    target_compile_options(limbic_test_pch PRIVATE ${LIMBIC_WARNINGS} ${LIMBIC_TEST_OPTIMIZE} ${LIMBIC_TEST_SANITIZE_FLAGS})
    target_link_libraries(limbic_test_pch PRIVATE Eigen3::Eigen flatbuffers::flatbuffers cppzmq yaml-cpp GTest::gtest)
    target_precompile_headers(limbic_test_pch PRIVATE ${LIMBIC_PCH_HEADERS} <gtest/gtest.h>)
  endif()
endif()

# limbic_use_pch(TARGET [test]): the shared precompiled headers, when they are on.
function(limbic_use_pch name)
  if(NOT LIMBIC_USE_PCH)
    return()
  endif()
  if(ARGV1 STREQUAL "test")
    target_precompile_headers(${name} REUSE_FROM limbic_test_pch)
  else()
    target_precompile_headers(${name} REUSE_FROM limbic_pch)
  endif()
endfunction()

# limbic_library(NAME SOURCES ... [DEPS ...])
function(limbic_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  limbic_use_pch(${name})
endfunction()

# limbic_executable(NAME SOURCES ... [DEPS ...] [TEST_ONLY])
# A program: installed into <prefix>/bin unless TEST_ONLY (helpers that only tests start).
function(limbic_executable name)
  cmake_parse_arguments(ARG "TEST_ONLY" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  limbic_use_pch(${name})
  if(NOT ARG_TEST_ONLY)
    install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endfunction()

# limbic_test(NAME SOURCES ... [DEPS ...] [LABEL unit|integration|system] [TIMEOUT s] [RESOURCE_LOCK name])
# GoogleTest binary; each TEST() becomes its own ctest entry carrying the label.
function(limbic_test name)
  if(NOT LIMBIC_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "LABEL;TIMEOUT;RESOURCE_LOCK" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(ARG_LABEL STREQUAL system AND NOT LIMBIC_SYSTEM_TESTS)
    return()
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  set(ARG_RESOURCE_LOCK_PROPERTY "")
  if(ARG_RESOURCE_LOCK)
    set(ARG_RESOURCE_LOCK_PROPERTY RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS} ${LIMBIC_TEST_OPTIMIZE} ${LIMBIC_TEST_SANITIZE_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  limbic_use_pch(${name} test)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # Where the executables and the sources are, for tests that start processes or read shipped files.
  target_compile_definitions(${name} PRIVATE LIMBIC_BUILD_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
                                             LIMBIC_SOURCE_ROOT="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT} ${ARG_RESOURCE_LOCK_PROPERTY})
endfunction()

# limbic_benchmark(NAME SOURCES ... [DEPS ...]) — never part of ctest.
function(limbic_benchmark name)
  if(NOT LIMBIC_BUILD_BENCH)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  limbic_use_pch(${name})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endfunction()

# limbic_test_dependencies(TEST TARGETS...): programs a test starts, built before it; nothing if the test is not
# built (LIMBIC_SYSTEM_TESTS=OFF).
function(limbic_test_dependencies name)
  if(TARGET ${name})
    add_dependencies(${name} ${ARGN})
  endif()
endfunction()

# limbic_broker_path_test(NAME [FILTER GTEST_FILTER]): GoogleTest binary NAME (a limbic_test) run once more with
# LIMBIC_BUS_PATH=broker (issue 23 items 1 and 5: every ZeroMQ node it makes publishes through the broker, the path
# that is not the default) — whole, or the tests FILTER selects — as one ctest entry NAME_broker_path labelled
# integration and broker_path. Nothing if NAME is not built. The whole suite on the broker path:
# `LIMBIC_BUS_PATH=broker ctest --test-dir build -LE broker_path`.
function(limbic_broker_path_test name)
  cmake_parse_arguments(ARG "" "FILTER" "" ${ARGN})
  if(NOT TARGET ${name})
    return()
  endif()
  set(args)
  if(ARG_FILTER)
    set(args --gtest_filter=${ARG_FILTER})
  endif()
  add_test(NAME ${name}_broker_path COMMAND ${name} ${args})
  set_tests_properties(${name}_broker_path PROPERTIES ENVIRONMENT "LIMBIC_BUS_PATH=broker"
                                                      LABELS "integration;broker_path" TIMEOUT 600
                                                      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
