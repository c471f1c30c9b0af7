# Installs headers, libraries, the `vitals` executable and a package config, so that an
# outside project does find_package(vitals [COMPONENTS ...]) and links vitals::vitals or
# the parts it uses.
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
install(EXPORT vitals-targets NAMESPACE vitals:: DESTINATION ${VITALS_CONFIG_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vitalsConfig.cmake.in
    ${PROJECT_BINARY_DIR}/vitalsConfig.cmake
    INSTALL_DESTINATION ${VITALS_CONFIG_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vitalsConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vitalsConfig.cmake ${PROJECT_BINARY_DIR}/vitalsConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FindRE2.cmake
    DESTINATION ${VITALS_CONFIG_DIR})
