# FVMMINI_SANITIZE=address,undefined (any -fsanitize= list): instrument every C++ target,
# make UBSan reports fatal, and give each test the runtime options (FVMMINI_SANITIZER_ENV).
# CPU-only: nvcc cannot compile or link sanitized code, and ASan's shadow memory clashes with
# the CUDA driver's address-space reservations.
set(FVMMINI_SANITIZE "" CACHE STRING
    "Sanitizers for a CPU-only build, as -fsanitize= takes them (e.g. address,undefined)")
set(FVMMINI_SANITIZER_ENV "")
if(FVMMINI_SANITIZE)
  if(FVMMINI_WITH_CUDA)
    message(FATAL_ERROR "FVMMINI_SANITIZE=${FVMMINI_SANITIZE} is for CPU-only builds: "
                        "configure with -DFVMMINI_WITH_CUDA=OFF")
  endif()
  add_compile_options(-fsanitize=${FVMMINI_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${FVMMINI_SANITIZE})
  if(FVMMINI_SANITIZE MATCHES "undefined")
    # a UBSan report ends the process with an error, so it fails the test
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  set(FVMMINI_SANITIZER_ENV
      "ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1"
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tools/sanitizers/lsan.supp:print_suppressions=0"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

# FVMMINI_FUZZ: coverage instrumentation for libFuzzer in every target, and the fuzz
# executables in tests/fuzz (tools/fuzz configures this build: clang, ASan+UBSan, build-fuzz/).
option(FVMMINI_FUZZ "Build the libFuzzer harnesses in tests/fuzz (clang, CPU-only)" OFF)
if(FVMMINI_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "FVMMINI_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++, "
                        "or run tools/fuzz")
  endif()
  if(FVMMINI_WITH_CUDA OR NOT FVMMINI_BUILD_TESTS)
    message(FATAL_ERROR "FVMMINI_FUZZ needs -DFVMMINI_WITH_CUDA=OFF and FVMMINI_BUILD_TESTS=ON")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
