# Included by the top-level CMakeLists.txt (at file scope: enable_language() must be).
# CUDA (impls/cuda, docs/gpu-results.md). AUTO: on when a CUDA compiler is found (nvcc on the PATH,
# $CUDACXX or CMAKE_CUDA_COMPILER); ON: required; OFF: the CUDA backends are not built (their CPU
# order models always are). One architecture: sm_90 real code plus PTX for later GPUs.
# ACCUCHECK_CUDA_ENABLED is what the subdirectories test.
set(ACCUCHECK_CUDA_ENABLED OFF)
if(NOT ACCUCHECK_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "ACCUCHECK_CUDA must be AUTO, ON or OFF (got '${ACCUCHECK_CUDA}')")
endif()
if(NOT ACCUCHECK_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
    endif()
    if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER AND CMAKE_CXX_COMPILER)
      set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # C++20 in .cu files. CMake 3.25's NVIDIA-CUDA module predates nvcc's -std=c++20 (CUDA 12+),
    # so the dialect flag is supplied here.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    set(ACCUCHECK_CUDA_ENABLED ON)
    message(STATUS "accucheck: CUDA backends with ${CMAKE_CUDA_COMPILER} (${CMAKE_CUDA_COMPILER_VERSION}), architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(ACCUCHECK_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ACCUCHECK_CUDA=ON but no CUDA compiler was found (put nvcc on the PATH or set CUDACXX)")
  else()
    message(STATUS "accucheck: no CUDA compiler found, the CUDA backends are not built (their CPU order models are)")
  endif()
endif()
