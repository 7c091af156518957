# Small helpers so that each directory's CMakeLists.txt reads as a list of what is built.
#
# Keywords shared by the helpers that make targets:
#   DEPS            libraries linked (consumers of a library see them too)
#   PUBLIC_INCLUDE  include directories of the target and of its consumers
#   INCLUDES        include directories of the target alone
#   PUBLIC_DEFINES  preprocessor definitions of the target and of its consumers
#   DEFINES         preprocessor definitions of the target alone
#   OPTIONS         compile options of the target alone
#   PROPERTIES      target properties, as name value pairs
#   DEPENDS         targets built before this one, not linked (a plugin a test loads, the CLI a test runs)
set(ACCUCHECK_TARGET_KEYWORDS DEPS PUBLIC_INCLUDE INCLUDES PUBLIC_DEFINES DEFINES OPTIONS PROPERTIES DEPENDS)

# Applies the shared keywords, parsed with prefix ARG, to `target`; `public` is the scope of
# what consumers see (PUBLIC, or INTERFACE for an interface library).
macro(_accucheck_apply_target_keywords target public)
  if(ARG_DEPS)
    target_link_libraries(${target} ${public} ${ARG_DEPS})
  endif()
  if(ARG_PUBLIC_INCLUDE)
    target_include_directories(${target} ${public} ${ARG_PUBLIC_INCLUDE})
  endif()
  if(ARG_PUBLIC_DEFINES)
    target_compile_definitions(${target} ${public} ${ARG_PUBLIC_DEFINES})
  endif()
  if(ARG_INCLUDES OR ARG_DEFINES OR ARG_OPTIONS)
    if(public STREQUAL "INTERFACE")
      message(FATAL_ERROR "${target}: an INTERFACE library has no INCLUDES, DEFINES or OPTIONS of its own (PUBLIC_INCLUDE, PUBLIC_DEFINES)")
    endif()
    target_include_directories(${target} PRIVATE ${ARG_INCLUDES})
    target_compile_definitions(${target} PRIVATE ${ARG_DEFINES})
    target_compile_options(${target} PRIVATE ${ARG_OPTIONS})
  endif()
  if(ARG_PROPERTIES)
    set_target_properties(${target} PROPERTIES ${ARG_PROPERTIES})
  endif()
  if(ARG_DEPENDS)
    add_dependencies(${target} ${ARG_DEPENDS})
  endif()
endmacro()

# accucheck_library(NAME <name> [OBJECT | INTERFACE] [EXCLUDE_FROM_ALL] [SOURCES ...] [shared keywords])
#   Defines accucheck_<name> with the alias accucheck::<name>. OBJECT: every object file reaches
#   every consumer (backends register themselves from static initialisers). INTERFACE: no sources,
#   only what its consumers get (DEPS, PUBLIC_INCLUDE, PUBLIC_DEFINES, DEPENDS). EXCLUDE_FROM_ALL:
#   built only when something that is built needs it.
function(accucheck_library)
  cmake_parse_arguments(ARG "OBJECT;INTERFACE;EXCLUDE_FROM_ALL" "NAME" "SOURCES;${ACCUCHECK_TARGET_KEYWORDS}" ${ARGN})
  set(target accucheck_${ARG_NAME})
  set(public PUBLIC)
  set(exclude "")
  if(ARG_EXCLUDE_FROM_ALL)
    set(exclude EXCLUDE_FROM_ALL)
  endif()
  if(ARG_INTERFACE)
    add_library(${target} INTERFACE)
    set(public INTERFACE)
  elseif(ARG_OBJECT)
    add_library(${target} OBJECT ${exclude} ${ARG_SOURCES})
  else()
    add_library(${target} STATIC ${exclude} ${ARG_SOURCES})
  endif()
  add_library(accucheck::${ARG_NAME} ALIAS ${target})
  _accucheck_apply_target_keywords(${target} ${public})
endfunction()

# accucheck_executable(NAME <name> SOURCES ... [OUTPUT_DIRECTORY dir] [shared keywords])
#   A program (the CLI, a tool, a benchmark); OUTPUT_DIRECTORY: where it is written (default: the
#   build directory of its CMakeLists.txt).
function(accucheck_executable)
  cmake_parse_arguments(ARG "" "NAME;OUTPUT_DIRECTORY" "SOURCES;${ACCUCHECK_TARGET_KEYWORDS}" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  _accucheck_apply_target_keywords(${ARG_NAME} PRIVATE)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
endfunction()

# The arguments every test helper takes (NAME, LABELS: default unit, TIMEOUT: default 600 s,
# ENV) and its own lists: sets ARG_* in the caller, and returns from it when tests are not built.
macro(_accucheck_test_arguments multi_value)
  if(NOT ACCUCHECK_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT;NIGHTLY_TIMEOUT;PASS_REGEX" "LABELS;ENV;${multi_value}" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
endmacro()

# accucheck_test(NAME <name> SOURCES ... [DEPS ...] [LABELS ...] [ENV ...] [TIMEOUT s]
#                [DEFINES ...] [INCLUDES ...] [DEPENDS ...])
#   A GoogleTest executable linked with accucheck::testing (testing/: the helpers tests share)
#   and DEPS; each test case becomes one ctest test with the labels. DEFINES and INCLUDES are
#   its private compile definitions and include directories; DEPENDS, targets that must be
#   built before it runs (plugins it loads by path, a program it starts).
function(accucheck_test)
  _accucheck_test_arguments("SOURCES;DEPS;DEFINES;INCLUDES;DEPENDS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} accucheck::testing GTest::gtest GTest::gtest_main)
  target_compile_definitions(${ARG_NAME} PRIVATE ${ARG_DEFINES})
  target_include_directories(${ARG_NAME} PRIVATE ${ARG_INCLUDES})
  if(ARG_DEPENDS)
    add_dependencies(${ARG_NAME} ${ARG_DEPENDS})
  endif()
  # gtest_discover_tests(PROPERTIES ...) flattens list values (a second label or environment
  # variable would become a property name), so the properties are set by a script that ctest
  # includes after the discovered tests, with the lists kept whole in bracket arguments.
  gtest_discover_tests(${ARG_NAME} DISCOVERY_TIMEOUT 120 TEST_LIST ${ARG_NAME}_TESTS)
  set(properties_script "${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}_properties.cmake")
  file(WRITE "${properties_script}"
    "if(${ARG_NAME}_TESTS)\n"
    "  set_tests_properties(\${${ARG_NAME}_TESTS} PROPERTIES LABELS [==[${ARG_LABELS}]==]\n"
    "    TIMEOUT ${ARG_TIMEOUT} ENVIRONMENT [==[${ARG_ENV}]==])\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${properties_script}")
endfunction()

# accucheck_script_test(NAME <name> COMMAND ... [LABELS ...] [ENV ...] [TIMEOUT s] [PASS_REGEX re])
#   A test that runs a command (a Python cross-check, a CLI run); with PASS_REGEX it passes when
#   its output matches (ctest's PASS_REGULAR_EXPRESSION), whatever its exit status.
function(accucheck_script_test)
  _accucheck_test_arguments("COMMAND" ${ARGN})
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_COMMAND})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
                       ENVIRONMENT "${ARG_ENV}")
  if(ARG_PASS_REGEX)
    set_tests_properties(${ARG_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${ARG_PASS_REGEX}")
  endif()
endfunction()

# accucheck_pytest(NAME <name> FILE <test_file.py> [LABELS ...] [ENV ...] [TIMEOUT s]
#                  [NIGHTLY_TIMEOUT s])
#   One pytest file as one ctest test (label python by default), run by the project's interpreter
#   with the build tree's package first on the path and its pytest plugin loaded; the CLI's Python
#   workers run that interpreter too (ACCUCHECK_PYTHON) unless a test says otherwise. With
#   NIGHTLY_TIMEOUT, also <name>.nightly (label nightly, ACCUCHECK_NIGHTLY=1): the whole file at
#   full size, its tests marked `nightly` included (python/tests/conftest.py, docs/testing.md).
function(accucheck_pytest)
  _accucheck_test_arguments("FILE" ${ARGN})
  if(ARG_LABELS STREQUAL "unit")
    set(ARG_LABELS python)
  endif()
  set(pytest ${Python3_EXECUTABLE} -m pytest -q -p accucheck.pytest_plugin -p no:cacheprovider
             ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_FILE})
  set(environment "PYTHONPATH=${ACCUCHECK_PYTHON_PACKAGE_DIR};ACCUCHECK_CLI=$<TARGET_FILE:accucheck>;ACCUCHECK_PYTHON=${Python3_EXECUTABLE};PYTHONDONTWRITEBYTECODE=1;${ARG_ENV}")
  add_test(NAME ${ARG_NAME} COMMAND ${pytest})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT} ENVIRONMENT "${environment}")
  if(ARG_NIGHTLY_TIMEOUT)
    add_test(NAME ${ARG_NAME}.nightly COMMAND ${pytest})
    set_tests_properties(${ARG_NAME}.nightly PROPERTIES LABELS nightly TIMEOUT ${ARG_NIGHTLY_TIMEOUT}
                         ENVIRONMENT "${environment};ACCUCHECK_NIGHTLY=1")
  endif()
endfunction()

# accucheck_test_plugins(FAMILY <name> SOURCE <file.c> VARIANTS <v>... [OPTIONS ...])
#   Test fixtures: one plugin (accucheck_plugin) per variant, compiled from SOURCE with
#   -DVARIANT_<v> (and testing/include: the sums test plugins share), as target accucheck_<name>_<v> and file ${CMAKE_BINARY_DIR}/<name>s/lib<name>_<v>.so;
#   the target accucheck_<name>s builds them all (for a test's DEPENDS). OPTIONS go to every
#   variant of the call: declare variants that need other options in a call of their own.
function(accucheck_test_plugins)
  if(NOT ACCUCHECK_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "FAMILY;SOURCE" "VARIANTS;OPTIONS" ${ARGN})
  set(family accucheck_${ARG_FAMILY}s)
  if(NOT TARGET ${family})
    add_custom_target(${family})
  endif()
  foreach(variant ${ARG_VARIANTS})
    set(target accucheck_${ARG_FAMILY}_${variant})
    accucheck_plugin(NAME ${target} OUTPUT_NAME ${ARG_FAMILY}_${variant}
      SOURCES ${ARG_SOURCE} DEFINES VARIANT_${variant} OPTIONS ${ARG_OPTIONS}
      INCLUDES ${PROJECT_SOURCE_DIR}/testing/include)  # accucheck/testing/plugin_sums.h
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${ARG_FAMILY}s)
    add_dependencies(${family} ${target})
  endforeach()
endfunction()

include(GoogleTest OPTIONAL)

# accucheck_fuzzer(NAME <name> SOURCES ... [TIMEOUT s] [shared keywords])
#   A fuzz target: the sources define LLVMFuzzerTestOneInput (and optionally
#   LLVMFuzzerInitialize / LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver).
#   ACCUCHECK_FUZZ ON:  a libFuzzer binary build-fuzz/fuzzers/<name>, linked with
#                       ACCUCHECK_FUZZ_ENGINE (-fsanitize=fuzzer, or $LIB_FUZZING_ENGINE).
#   ACCUCHECK_FUZZ OFF: the same sources against the standalone replay main
#                       (fuzzers/replay_main.cpp, no libFuzzer) as build/fuzzers/<name>, and a
#                       ctest <name>_corpus (label fuzz-regression) replaying every file of
#                       corpora/<name>/seed and corpora/<name>/regressions (when corpora/<name>
#                       exists).
function(accucheck_fuzzer)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SOURCES;${ACCUCHECK_TARGET_KEYWORDS}" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  _accucheck_apply_target_keywords(${ARG_NAME} PRIVATE)
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzzers)
  if(ACCUCHECK_FUZZ)
    separate_arguments(engine UNIX_COMMAND "${ACCUCHECK_FUZZ_ENGINE}")
    target_link_options(${ARG_NAME} PRIVATE ${engine})
    return()
  endif()
  target_link_libraries(${ARG_NAME} PRIVATE accucheck::fuzz_replay_main)
  set(corpus ${PROJECT_SOURCE_DIR}/corpora/${ARG_NAME})
  if(ACCUCHECK_BUILD_TESTS AND EXISTS ${corpus})
    add_test(NAME ${ARG_NAME}_corpus COMMAND ${ARG_NAME} ${corpus}/seed ${corpus}/regressions)
    set_tests_properties(${ARG_NAME}_corpus PROPERTIES LABELS fuzz-regression TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()

# accucheck_numeric_coverage(TARGET <target> | SOURCES <file>...)
#   In fuzz builds, the coverage instrumentation of numeric code, as
#   ACCUCHECK_FUZZ_NUMERIC_COVERAGE says: "full" (edges and comparison tracing, like the rest),
#   "edges" (edge counters only, the default) or "none" (a TARGET uninstrumented; SOURCES keep
#   their edges). TARGET: a backends' library (impls/, the mutants); SOURCES: core's exact sums,
#   bound evaluation and judging. docs/fuzzing.md, "Coverage of the numeric code".
function(accucheck_numeric_coverage)
  cmake_parse_arguments(ARG "" "TARGET" "SOURCES" ${ARGN})
  set(mode "${ACCUCHECK_FUZZ_NUMERIC_COVERAGE}")
  if(NOT mode MATCHES "^(full|edges|none)$")
    message(FATAL_ERROR "ACCUCHECK_FUZZ_NUMERIC_COVERAGE is '${mode}': full, edges or none")
  endif()
  if(NOT ACCUCHECK_FUZZ OR mode STREQUAL "full")
    return()
  endif()
  set(removed trace-cmp)
  if(mode STREQUAL "none" AND ARG_TARGET)
    set(removed inline-8bit-counters,trace-cmp,indirect-calls,pc-table)
  endif()
  if(ARG_TARGET)
    target_compile_options(${ARG_TARGET} PRIVATE $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-coverage=${removed}>)
  endif()
  if(ARG_SOURCES)
    set_property(SOURCE ${ARG_SOURCES} APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize-coverage=${removed})
  endif()
endfunction()

# accucheck_plugin(NAME <target> SOURCES ... [OUTPUT_NAME name] [OUTPUT_DIRECTORY dir] [shared keywords but DEPS])
#   A backend plugin: a C99 MODULE library built against core/include/accucheck/plugin.h only
#   (it links nothing of accucheck), loaded at run time with --plugin. OPTIONS go to the
#   compiler and the linker (-ffast-math must reach both: the link adds crtfastmath.o).
function(accucheck_plugin)
  cmake_parse_arguments(ARG "" "NAME;OUTPUT_NAME;OUTPUT_DIRECTORY" "SOURCES;${ACCUCHECK_TARGET_KEYWORDS}" ${ARGN})
  if(ARG_DEPS)
    message(FATAL_ERROR "${ARG_NAME}: a plugin links nothing of accucheck (DEPS ${ARG_DEPS})")
  endif()
  add_library(${ARG_NAME} MODULE ${ARG_SOURCES})
  list(PREPEND ARG_INCLUDES ${PROJECT_SOURCE_DIR}/core/include)
  target_compile_options(${ARG_NAME} PRIVATE -Wall -Wextra -pedantic)
  _accucheck_apply_target_keywords(${ARG_NAME} PRIVATE)
  target_link_options(${ARG_NAME} PRIVATE ${ARG_OPTIONS})
  set_target_properties(${ARG_NAME} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  if(ARG_OUTPUT_NAME)
    set_target_properties(${ARG_NAME} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${ARG_NAME} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  endif()
  if(UNIX)
    target_link_libraries(${ARG_NAME} PRIVATE m)
  endif()
endfunction()

# accucheck_optional_library(<OPTION> NAMES name... [PATH_SUFFIXES ...] FOR "<what it builds>" PACKAGE <package>)
#   An optional third-party library: the cache option <OPTION> is AUTO (use it when it is found,
#   the default), ON (required) or OFF. Sets <OPTION>_ENABLED (ON or OFF) in the caller and the
#   cache entry <OPTION>_LIB (its path); with them a target's SOURCES, DEPS and DEFINES can name
#   what it adds as generator expressions ($<$<BOOL:${<OPTION>_ENABLED}>:...>).
function(accucheck_optional_library option)
  cmake_parse_arguments(ARG "" "FOR;PACKAGE" "NAMES;PATH_SUFFIXES" ${ARGN})
  list(GET ARG_NAMES 0 first_name)
  set(${option} "AUTO" CACHE STRING "Build ${ARG_FOR}: AUTO (when lib${first_name} is found), ON or OFF")
  set_property(CACHE ${option} PROPERTY STRINGS AUTO ON OFF)
  set(enabled OFF)
  if(NOT ${option} STREQUAL "OFF")
    find_library(${option}_LIB NAMES ${ARG_NAMES} PATH_SUFFIXES ${ARG_PATH_SUFFIXES})
    if(${option}_LIB)
      set(enabled ON)
      message(STATUS "accucheck: ${ARG_FOR} over ${${option}_LIB}")
    elseif(${option} STREQUAL "ON")
      message(FATAL_ERROR "${option}=ON but lib${first_name} was not found (apt-get install ${ARG_PACKAGE})")
    else()
      message(STATUS "accucheck: lib${first_name} not found, ${ARG_FOR} are not built")
    endif()
  endif()
  set(${option}_ENABLED ${enabled} PARENT_SCOPE)
endfunction()

# accucheck_embedded_files(<variable> HEADER <name.h> NAMESPACE <ns> FILES <file>... [COMMENT text])
#   Generates <name>.cpp, defining embedded_files() (declared in HEADER: {name, bytes} of every
#   file) so that a binary carries its data with it; <variable> is its path, for SOURCES.
function(accucheck_embedded_files variable)
  cmake_parse_arguments(ARG "" "HEADER;NAMESPACE;COMMENT" "FILES" ${ARGN})
  get_filename_component(stem ${ARG_HEADER} NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${stem}.cpp)
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedFiles.cmake)
  string(REPLACE ";" "|" file_list "${ARG_FILES}")  # one -D argument
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DHEADER=${ARG_HEADER} -DNAMESPACE=${ARG_NAMESPACE} -DFILES=${file_list} -P ${script}
    DEPENDS ${ARG_FILES} ${script}
    COMMENT "${ARG_COMMENT}"
    VERBATIM)
  set(${variable} ${out} PARENT_SCOPE)
endfunction()

# accucheck_find_python(MODULES ...)
#   The one Python interpreter of the build and of every test and tool ctest runs:
#   ACCUCHECK_PYTHON (default: the venv ci/install-deps.sh makes from Debian's /usr/bin/python3,
#   with ci/python-requirements.txt), never the python3 that happens to come first on PATH.
#   Configuring fails, naming the interpreter and the fix, when it is missing or lacks a module.
macro(accucheck_find_python)
  cmake_parse_arguments(ACCUCHECK_PY "" "" "MODULES" ${ARGN})
  set(ACCUCHECK_PYTHON "${PROJECT_SOURCE_DIR}/.venv/bin/python3" CACHE FILEPATH
      "The Python interpreter of the tests (default: the venv made by ci/install-deps.sh)")
  if(NOT EXISTS "${ACCUCHECK_PYTHON}")
    message(FATAL_ERROR "accucheck: no Python interpreter at ACCUCHECK_PYTHON=${ACCUCHECK_PYTHON}: run "
                        "ci/install-deps.sh (it makes that venv with ci/python-requirements.txt), or pass "
                        "-DACCUCHECK_PYTHON=/path/to/python3 of an interpreter with: ${ACCUCHECK_PY_MODULES}")
  endif()
  set(Python3_EXECUTABLE "${ACCUCHECK_PYTHON}" CACHE FILEPATH "The interpreter FindPython3 uses (from ACCUCHECK_PYTHON)" FORCE)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  foreach(module IN LISTS ACCUCHECK_PY_MODULES)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import ${module}"
                    RESULT_VARIABLE ACCUCHECK_PY_IMPORT ERROR_VARIABLE ACCUCHECK_PY_ERROR OUTPUT_QUIET)
    if(NOT ACCUCHECK_PY_IMPORT EQUAL 0)
      message(FATAL_ERROR "accucheck: Python module '${module}' is not installed for ${Python3_EXECUTABLE}: "
                          "run ci/install-deps.sh (ci/python-requirements.txt)\n${ACCUCHECK_PY_ERROR}")
    endif()
  endforeach()
  message(STATUS "accucheck: tests use Python ${Python3_VERSION} at ${Python3_EXECUTABLE} (modules: ${ACCUCHECK_PY_MODULES})")
endmacro()
