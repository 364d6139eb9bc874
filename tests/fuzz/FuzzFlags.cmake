# Sanitizer and coverage flags for a fuzzing build (-DLIMBIC_FUZZ=ON, clang only).
# Include this from the top-level CMakeLists.txt right after `option(LIMBIC_FUZZ ...)` and BEFORE the
# first add_subdirectory(), so that limbic_messages, limbic_bus, limbic_cli ... are compiled with
# coverage instrumentation (libFuzzer can only steer by code it can see) and AddressSanitizer/UBSan:
#   option(LIMBIC_FUZZ "Build the libFuzzer targets in tests/fuzz (clang; instruments the whole tree)" OFF)
#   include(tests/fuzz/FuzzFlags.cmake)
# Every executable of such a build links the sanitizer runtimes (add_link_options), so the rest of the
# tree still builds and its tests run under ASan/UBSan. Use a separate build directory for it.
if(LIMBIC_FUZZ)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(LIMBIC_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                              -fno-omit-frame-pointer)
    add_compile_options(-fsanitize=fuzzer-no-link ${LIMBIC_SANITIZE_FLAGS})
    add_link_options(-fsanitize=address,undefined)
    set(LIMBIC_FUZZ_FLAGS_APPLIED ON)
  else()
    message(WARNING "LIMBIC_FUZZ=ON needs clang (libFuzzer); ${CMAKE_CXX_COMPILER_ID} builds no fuzz targets. "
                    "Configure with CC=clang CXX=clang++.")
  endif()
endif()
