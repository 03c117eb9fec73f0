# Helpers shared by every folder.

# brigade_library(NAME DEPS...): a static library from every .cpp in the
# calling folder (sources are globbed so that adding a file needs no edit here).
function(brigade_library name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(NOT _srcs)
    # A layer with no sources yet: an interface target so that dependants link.
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARG_DEPS})
    return()
  endif()
  add_library(${name} STATIC ${_srcs})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} brigade_warnings)
endfunction()

# brigade_test_folder(FOLDER LIBS...): one GoogleTest executable per tests/
# subfolder, from every *_test.cpp in it; each TEST becomes one ctest entry.
function(brigade_test_folder folder)
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*_test.cpp)
  if(NOT _srcs)
    return()
  endif()
  set(_exe ${folder}_tests)
  add_executable(${_exe} ${_srcs})
  target_link_libraries(${_exe} PRIVATE ${ARGN} GTest::gtest GTest::gtest_main brigade_warnings)
  target_compile_definitions(${_exe} PRIVATE
    BRIGADE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    BRIGADE_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${_exe} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS ${folder} DISCOVERY_TIMEOUT 60)
endfunction()
