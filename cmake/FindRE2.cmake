# RE2, Google's linear-time regular expressions (Debian: libre2-dev, which ships no CMake
# package of its own). Defines RE2::RE2.
find_path(RE2_INCLUDE_DIR re2/re2.h)
# The static library first: a program linked with it runs where libre2 is not installed.
find_library(RE2_LIBRARY NAMES libre2.a re2)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(RE2 REQUIRED_VARS RE2_LIBRARY RE2_INCLUDE_DIR)
if(RE2_FOUND AND NOT TARGET RE2::RE2)
    add_library(RE2::RE2 UNKNOWN IMPORTED)
    set_target_properties(RE2::RE2 PROPERTIES
        IMPORTED_LOCATION "${RE2_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${RE2_INCLUDE_DIR}")
    find_package(Threads REQUIRED)
    set_property(TARGET RE2::RE2 PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(RE2_INCLUDE_DIR RE2_LIBRARY)
