# Installs headers, libraries, the `vitals` executable, a package config and pkg-config
# files, so that an outside project does find_package(vitals [COMPONENTS ...]) and links
# vitals::vitals or the parts it uses, or asks pkg-config for vitals or vitals-<part>.
include(CMakePackageConfigHelpers)

set(VITALS_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/vitals)
set(VITALS_INSTALLED_TARGETS vitals vitals_platform vitals_stats vitals_machine vitals_profiler_bridge vitals_timer
    vitals_kernels vitals_results vitals_history vitals_runner)
if(VITALS_HAS_CUDA)
    list(APPEND VITALS_INSTALLED_TARGETS vitals_cuda)
endif()
install(TARGETS ${VITALS_INSTALLED_TARGETS}
    EXPORT vitals-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET vitals_cli)
    install(TARGETS vitals_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
foreach(part IN ITEMS platform stats machine profiler_bridge timer kernels results history runner)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${part}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/vitals/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vitals)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(EXPORT vitals-targets NAMESPACE vitals:: DESTINATION ${VITALS_CONFIG_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vitalsConfig.cmake.in
    ${PROJECT_BINARY_DIR}/vitalsConfig.cmake
    INSTALL_DESTINATION ${VITALS_CONFIG_DIR})
# Before 1.0 a minor release may break the API, so 0.1.x satisfies a request for 0.1 and
# not 0.2; from 1.0 on, any release of the same major version does.
if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(VITALS_COMPATIBILITY SameMinorVersion)
else()
    set(VITALS_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vitalsConfigVersion.cmake
    COMPATIBILITY ${VITALS_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/vitalsConfig.cmake ${PROJECT_BINARY_DIR}/vitalsConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindRE2.cmake
    ${PROJECT_SOURCE_DIR}/cmake/vitalsDiscoverCases.cmake
    DESTINATION ${VITALS_CONFIG_DIR})

include(${CMAKE_CURRENT_LIST_DIR}/pkgconfig.cmake)
