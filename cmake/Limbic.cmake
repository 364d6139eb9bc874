# Shared build helpers. Every limbic target gets the same warnings and include root.
include(GNUInstallDirs)

set(LIMBIC_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-unused-parameter
    # Designated initializers ({.name = "x"}) leave the other fields at their defaults on purpose.
    -Wno-missing-field-initializers)
if(LIMBIC_WERROR)
  list(APPEND LIMBIC_WARNINGS -Werror)
endif()

# limbic_library(NAME SOURCES ... [DEPS ...])
function(limbic_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# limbic_executable(NAME SOURCES ... [DEPS ...] [TEST_ONLY])
# A program: installed into <prefix>/bin unless TEST_ONLY (helpers that only tests start).
function(limbic_executable name)
  cmake_parse_arguments(ARG "TEST_ONLY" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  if(NOT ARG_TEST_ONLY)
    install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endfunction()

# limbic_test(NAME SOURCES ... [DEPS ...] [LABEL unit|integration|system] [TIMEOUT s])
# GoogleTest binary; each TEST() becomes its own ctest entry carrying the label.
function(limbic_test name)
  if(NOT LIMBIC_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "LABEL;TIMEOUT" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(ARG_LABEL STREQUAL system AND NOT LIMBIC_SYSTEM_TESTS)
    return()
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${LIMBIC_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # Where the executables and the sources are, for tests that start processes or read shipped files.
  target_compile_definitions(${name} PRIVATE LIMBIC_BUILD_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
                                             LIMBIC_SOURCE_ROOT="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT})
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
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endfunction()

# limbic_test_dependencies(TEST TARGETS...): programs a test starts, built before it; nothing if the test is not
# built (LIMBIC_SYSTEM_TESTS=OFF).
function(limbic_test_dependencies name)
  if(TARGET ${name})
    add_dependencies(${name} ${ARGN})
  endif()
endfunction()
